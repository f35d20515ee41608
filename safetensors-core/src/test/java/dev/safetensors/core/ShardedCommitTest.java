package dev.safetensors.core;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the commit protocol promises in process: checks before the first rename, earlier layouts refused by name or
 * deleted, missing folders created and removed on failure, output failures coded as the output's, the float overloads
 * narrowing as {@link Float32Narrowing} does, and every durability choice writing the same bytes.
 */
class ShardedCommitTest {
    @TempDir
    Path dir;

    private static ShardedWriter abc(long max) {
        return ShardedWriter.create(max)
                .tensor("a", DType.U8, new long[] {400}, new byte[400])
                .tensor("b", DType.U8, new long[] {100}, filled(100, 7))
                .tensor("c", DType.U8, new long[] {300}, filled(300, 9));
    }

    private static byte[] filled(int n, int v) {
        byte[] b = new byte[n];
        java.util.Arrays.fill(b, (byte) v);
        return b;
    }

    private List<String> names() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aFailingCheckStopsTheWriteBeforeAnyRename() throws IOException {
        abc(500).writeTo(dir);
        byte[] before = Files.readAllBytes(dir.resolve("model-00001-of-00002.safetensors"));
        List<Path> checked = new ArrayList<>();
        StorageException e = assertThrows(StorageException.class, () -> abc(450).replaceExisting(true)
                .check((target, staged) -> {
                    checked.add(target);
                    assertTrue(Files.size(staged) > 0, "the staged file is complete when checked");
                    if (checked.size() == 2) {
                        throw new StorageException(ErrorCode.WRITE_FAILED, target.toString(), "read back differs");
                    }
                }).writeTo(dir));
        assertEquals(ErrorCode.WRITE_FAILED, e.code());
        assertEquals(2, checked.size(), "both shards are checked (the index is not a shard)");
        assertArrayEquals(before, Files.readAllBytes(dir.resolve("model-00001-of-00002.safetensors")),
                "nothing was renamed");
        assertEquals(List.of("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors",
                "model.safetensors.index.json"), names(), "no temporary file or journal is left");
    }

    @Test
    void anEarlierSingleFileIsRefusedByNameThenDeletedWithReplace() throws IOException {
        abc(Long.MAX_VALUE).writeTo(dir);
        StorageException e = assertThrows(StorageException.class, () -> abc(450).writeTo(dir));
        assertEquals(ErrorCode.ALREADY_EXISTS, e.code());
        assertEquals(dir.resolve("model.safetensors").toString(), e.source(), "the file in the way is named");
        assertEquals(List.of("model.safetensors"), names(), "nothing was written");
        abc(450).replaceExisting(true).writeTo(dir);
        assertEquals(List.of("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors",
                "model.safetensors.index.json"), names(), "the single file is gone once the shards are whole");
        abc(Long.MAX_VALUE).replaceExisting(true).writeTo(dir);
        assertEquals(List.of("model.safetensors"), names(), "and the other way round");
    }

    @Test
    void anExistingFileOfTheSameNameIsNamedInTheRefusal() throws IOException {
        abc(450).writeTo(dir);
        StorageException e = assertThrows(StorageException.class, () -> abc(450).writeTo(dir));
        assertEquals(ErrorCode.ALREADY_EXISTS, e.code());
        assertEquals(dir.resolve("model-00001-of-00002.safetensors").toString(), e.source());
    }

    @Test
    void aMissingFolderIsCreatedAndRemovedAgainOnFailure() throws IOException {
        Path out = dir.resolve("x/y");
        abc(450).writeTo(out);
        assertTrue(Files.isRegularFile(out.resolve("model.safetensors.index.json")));
        Path failed = dir.resolve("p/q");
        ShardedWriter w = abc(450).tensor("d", DType.U8, new long[] {5}, TensorSource.of(5,
                () -> java.nio.channels.Channels.newChannel(new java.io.ByteArrayInputStream(new byte[2]))));
        StorageException e = assertThrows(StorageException.class, () -> w.writeTo(failed));
        assertEquals(ErrorCode.TRUNCATED, e.code(), "a short source is the source's failure");
        assertFalse(Files.exists(dir.resolve("p")), "the folders created for the write are removed");
    }

    @Test
    void aFileGivenAsTheFolderIsAWriteFailureThatSaysSo() throws IOException {
        Path file = Files.writeString(dir.resolve("plain"), "x");
        StorageException e = assertThrows(StorageException.class, () -> abc(450).writeTo(file));
        assertEquals(ErrorCode.WRITE_FAILED, e.code());
        assertTrue(e.getMessage().contains("is a file, not a folder"), e.getMessage());
    }

    @Test
    void aFullDeviceIsAWriteFailureOfTheOutput() {
        WritableByteChannel full = new WritableByteChannel() {
            @Override
            public int write(ByteBuffer src) throws IOException {
                throw new IOException("No space left on device");
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {
            }
        };
        StorageException e = assertThrows(StorageException.class, () -> SafetensorsWriter.create()
                .tensor("a", DType.U8, new long[] {3}, new byte[] {1, 2, 3}).writeTo(full));
        assertEquals(ErrorCode.WRITE_FAILED, e.code());
        assertTrue(e.getMessage().contains("No space left on device"), e.getMessage());
    }

    @Test
    void aPrefixLongerThan200BytesInUtf8IsRefused() {
        assertThrows(IllegalArgumentException.class, () -> ShardedWriter.create(1).prefix("€".repeat(67)));
        ShardedWriter.create(1).prefix("€".repeat(66));
        ShardedWriter.create(1).prefix("m".repeat(200));
    }

    @Test
    void floatValuesAreNarrowedAsFloat32NarrowingDoes() throws IOException {
        float[] values = {1f, 1.0009765625f + 1e-7f, 65520f, Float.NaN, -0f, 3.14159f};
        ShardedWriter.create(1).tensor("f32", new long[] {6}, values)
                .tensor("f16", DType.F16, new long[] {6}, values)
                .tensor("bf16", DType.BF16, new long[] {2, 3}, values).writeTo(dir);
        try (Checkpoint c = Checkpoint.open(dir.resolve("model.safetensors.index.json"))) {
            assertEquals(Float32Narrowing.narrow(DType.F16, values), c.readBytes("f16"));
            assertEquals(Float32Narrowing.narrow(DType.BF16, values), c.readBytes("bf16"));
            ByteBuffer f32 = c.readBytes("f32").order(ByteOrder.LITTLE_ENDIAN);
            for (float v : values) {
                assertEquals(Float.floatToRawIntBits(v), f32.getInt());
            }
        }
        assertThrows(IllegalArgumentException.class,
                () -> SafetensorsWriter.create().tensor("i", DType.I32, new long[] {1}, new float[] {1}));
    }

    @Test
    void everyDurabilityWritesTheSameBytes() throws IOException {
        List<byte[]> results = new ArrayList<>();
        for (Durability d : Durability.values()) {
            Path out = dir.resolve(d.name());
            abc(450).durability(d).writeTo(out);
            results.add(Files.readAllBytes(out.resolve("model-00002-of-00002.safetensors")));
        }
        assertArrayEquals(results.get(0), results.get(1));
        assertArrayEquals(results.get(0), results.get(2));
    }

    @Test
    void aSymbolicLinkAmongTheTargetsIsReplacedNotFollowed() throws IOException {
        Path elsewhere = Files.writeString(dir.resolve("elsewhere.txt"), "keep me");
        Path out = Files.createDirectory(dir.resolve("out"));
        Files.createSymbolicLink(out.resolve("model.safetensors"), elsewhere);
        StorageException e = assertThrows(StorageException.class, () -> abc(Long.MAX_VALUE).writeTo(out));
        assertEquals(ErrorCode.ALREADY_EXISTS, e.code(), "a link is in the way like a file");
        abc(Long.MAX_VALUE).replaceExisting(true).writeTo(out);
        assertFalse(Files.isSymbolicLink(out.resolve("model.safetensors")));
        assertEquals(800, Files.size(out.resolve("model.safetensors")) - 8
                - dev.safetensors.core.Safetensors.readHeader(out.resolve("model.safetensors")).payloadOffset() + 8);
        assertEquals("keep me", Files.readString(elsewhere), "the link's target is untouched");
    }
}
