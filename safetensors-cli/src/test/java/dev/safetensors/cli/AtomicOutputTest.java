package dev.safetensors.cli;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The output file that appears whole or not at all, under the failures {@code dump} cannot provoke at will. */
class AtomicOutputTest {
    @TempDir
    Path dir;

    @Test
    void aWriteThatStopsMidwayLeavesTheTargetAsItWasAndNoTemporaryFile() throws IOException {
        Path target = Files.writeString(dir.resolve("out.bin"), "previous content");
        try (AtomicOutput output = AtomicOutput.create(target, null)) {
            output.stream().write("half of the new".getBytes(StandardCharsets.US_ASCII));
            output.stream().flush();
            assertEquals(List.of("out.bin"), names().stream().filter(n -> !n.endsWith(".part")).toList());
            assertEquals(2, names().size(), "the bytes went to a temporary file beside the target");
            // no commit: the read failed here
        }
        assertEquals("previous content", Files.readString(target));
        assertEquals(List.of("out.bin"), names());
    }

    @Test
    void aCommitReplacesTheTargetWhole() throws IOException {
        Path target = Files.writeString(dir.resolve("out.bin"), "previous content");
        try (AtomicOutput output = AtomicOutput.create(target, null)) {
            output.stream().write("new".getBytes(StandardCharsets.US_ASCII));
            output.commit();
        }
        assertEquals("new", Files.readString(target));
        assertEquals(List.of("out.bin"), names());
    }

    @Test
    void aTargetInAMissingFolderIsAWriteFailureNamingTheTarget() {
        Path target = dir.resolve("missing").resolve("out.bin");
        StorageException e = assertThrows(StorageException.class, () -> AtomicOutput.create(target, null));
        assertEquals(ErrorCode.WRITE_FAILED, e.code());
        assertEquals(target.toString(), e.source());
        assertFalse(Files.exists(target.getParent()));
    }

    private List<String> names() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
