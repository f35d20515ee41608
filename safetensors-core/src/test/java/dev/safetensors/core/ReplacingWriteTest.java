package dev.safetensors.core;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.safetensors.core.internal.write.TempFileJanitor;

/**
 * What an atomic write replaces: the whole file or nothing, permissions kept, links written through, the files being
 * read protected, temporary files never left behind.
 *
 * <p>Alone ({@code @Isolated}): it compares the JVM-wide set of temporary files in flight before and after a write.
 */
@Isolated
class ReplacingWriteTest {
    @TempDir
    Path dir;

    private static SafetensorsWriter small() {
        return SafetensorsWriter.create().tensor("t", DType.U8, new long[] {2}, new byte[] {1, 2});
    }

    @Test
    void aReplacedFileKeepsItsPermissions() throws IOException {
        Path target = dir.resolve("private.safetensors");
        Files.write(target, new byte[] {0});
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-------"));
        small().writeTo(target);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(target)));
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-rw-r--"));
        small().writeTo(target);
        assertEquals("rw-rw-r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(target)));
        assertEquals(2, Safetensors.readHeader(target).tensors().get(0).byteLength());
    }

    @Test
    void aSymbolicLinkIsWrittenThroughAndStaysALink() throws IOException {
        Path real = Files.write(dir.resolve("real.safetensors"), new byte[] {0});
        Path link = Files.createSymbolicLink(dir.resolve("link.safetensors"), real.getFileName());
        small().writeTo(link);
        assertTrue(Files.isSymbolicLink(link), "the link is kept");
        assertEquals(real.getFileName(), Files.readSymbolicLink(link));
        assertEquals(Files.size(link), Safetensors.readHeader(real).fileSize(), "the target got the new bytes");
        assertEquals(Set.of("real.safetensors", "link.safetensors"), Set.of(dir.toFile().list()));
    }

    @Test
    void aLinkToAMissingFileIsRefused() throws IOException {
        Path link = Files.createSymbolicLink(dir.resolve("dangling.safetensors"), dir.resolve("missing"));
        NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> small().writeTo(link));
        assertEquals(ErrorCode.NOT_FOUND, ErrorCode.of(e));
        assertTrue(e.getMessage().contains("symbolic link"), e.getMessage());
        assertEquals(List.of("dangling.safetensors"), List.of(dir.toFile().list()));
    }

    @Test
    void aDirectoryIsRefused() throws IOException {
        Path sub = Files.createDirectory(dir.resolve("sub"));
        StorageException e = assertThrows(StorageException.class, () -> small().writeTo(sub));
        assertEquals(ErrorCode.NOT_A_FILE, e.code());
        assertTrue(Files.isDirectory(sub));
    }

    @Test
    void theJanitorDeletesWhatIsInFlightAndForgetsWhatWasReleased() throws IOException {
        TempFileJanitor janitor = new TempFileJanitor(false);
        AtomicFile kept = AtomicFile.create(dir.resolve("kept.safetensors"), true, janitor);
        AtomicFile killed = AtomicFile.create(dir.resolve("killed.safetensors"), true, janitor);
        assertEquals(2, janitor.inFlight().size());
        kept.commit();
        assertEquals(1, janitor.inFlight().size(), "a committed file is released");
        Path temp = janitor.inFlight().iterator().next();
        assertTrue(Files.exists(temp));
        janitor.deleteAll();
        assertFalse(Files.exists(temp), "what the shutdown hook runs deletes the file in flight");
        assertEquals(Set.of(), janitor.inFlight());
        killed.close();
        assertEquals(Set.of("kept.safetensors"), Set.of(dir.toFile().list()));
    }

    @Test
    void aFailedWriteReleasesItsTemporaryFileFromTheJvmRegistry() {
        Set<Path> before = TempFileJanitor.JVM.inFlight();
        SafetensorsWriter w = SafetensorsWriter.create().tensor("t", DType.U8, new long[] {4},
                TensorSource.of(4, () -> {
                    throw new StorageException(ErrorCode.NETWORK, "remote", "source failed");
                }));
        StorageException e = assertThrows(StorageException.class, () -> w.writeTo(dir.resolve("x.safetensors")));
        assertEquals(ErrorCode.NETWORK, e.code(), "the source's own failure reaches the caller");
        assertEquals(before, TempFileJanitor.JVM.inFlight());
        assertEquals(0, dir.toFile().list().length);
    }

    @Test
    void aWriteThatStopsMidwayLeavesTheTargetAsItWasAndNoTemporaryFile() throws IOException {
        Path target = Files.writeString(dir.resolve("out.bin"), "previous content");
        try (AtomicFile file = AtomicFile.replacing(target)) {
            file.channel().write(ByteBuffer.wrap("half of the new".getBytes(StandardCharsets.US_ASCII)));
            List<String> names = names();
            assertEquals(2, names.size(), "the bytes went to a temporary file beside the target");
            assertTrue(names.get(0).startsWith(".out.bin.") && names.get(0).endsWith(".tmp"), names.toString());
            assertEquals("previous content", Files.readString(target));
            // no commit: the read failed here
        }
        assertEquals("previous content", Files.readString(target));
        assertEquals(List.of("out.bin"), names());
    }

    @Test
    void aCommitReplacesTheTargetWhole() throws IOException {
        Path target = Files.writeString(dir.resolve("out.bin"), "previous content");
        try (AtomicFile file = AtomicFile.replacing(target)) {
            file.channel().write(ByteBuffer.wrap("new".getBytes(StandardCharsets.US_ASCII)));
            file.commit();
        }
        assertEquals("new", Files.readString(target));
        assertEquals(List.of("out.bin"), names());
    }

    @Test
    void aTargetInAMissingFolderIsNotFoundNamingTheTarget() {
        Path target = dir.resolve("missing").resolve("out.bin");
        NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> AtomicFile.replacing(target));
        assertEquals(ErrorCode.NOT_FOUND, ErrorCode.of(e));
        assertEquals(target.toString(), e.getFile());
        assertTrue(e.getReason().contains("folder does not exist"), e.getMessage());
        assertFalse(Files.exists(target.getParent()));
    }

    @Test
    void anOutputThatIsAnInputByNameHardLinkOrSymbolicLinkIsRefusedBeforeAnythingIsWritten() throws IOException {
        Path source = Files.writeString(dir.resolve("m.safetensors"), "the source");
        Path hard = Files.createLink(dir.resolve("hard.safetensors"), source);
        Path soft = Files.createSymbolicLink(dir.resolve("soft.safetensors"), source);
        Path other = Files.writeString(dir.resolve("other.bin"), "other");
        for (Path out : List.of(source, hard, soft, dir.resolve(".").resolve("m.safetensors"))) {
            StorageException e = assertThrows(StorageException.class,
                    () -> AtomicFile.replacing(out, other, source));
            assertEquals(ErrorCode.WRITE_FAILED, e.code());
            assertEquals(out.toString(), e.source());
            assertTrue(e.detail().startsWith("is the file being read"), e.detail());
        }
        assertEquals("the source", Files.readString(source));
        assertTrue(Files.isSymbolicLink(soft));
        assertEquals(List.of("hard.safetensors", "m.safetensors", "other.bin", "soft.safetensors"), names());
        try (AtomicFile file = AtomicFile.replacing(other, source, dir.resolve("gone"))) {
            file.commit();
        }
        assertEquals(0, Files.size(other), "another file, and a missing input, are no reason to refuse");
    }

    @Test
    void aFifoIsRefused() throws IOException, InterruptedException {
        Path fifo = Fifo.create(dir.resolve("pipe"));
        StorageException e = assertThrows(StorageException.class, () -> AtomicFile.replacing(fifo));
        assertEquals(ErrorCode.NOT_A_FILE, e.code());
        assertTrue(e.detail().contains("FIFO"), e.detail());
        assertEquals(List.of("pipe"), names());
    }

    private List<String> names() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
