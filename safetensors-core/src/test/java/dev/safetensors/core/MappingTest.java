package dev.safetensors.core;

import dev.safetensors.Slice;
import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import dev.safetensors.TensorAccessException;
import dev.safetensors.fixtures.MemorySource;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ReadOnlyBufferException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Zero-copy views of local tensors: contents, order, read-only, files past 2 GiB, and what closing does. */
class MappingTest {
    @TempDir
    Path dir;

    @Test
    void aViewHoldsTheTensorsBytesLittleEndianAndReadOnly() throws IOException {
        byte[] payload = new byte[4 + 24];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) (i * 7 + 1);
        }
        byte[] bytes = TensorFiles.withPayload(SafetensorsFixture.create().tensor("a", "U8", 4)
                .tensor("b", "F32", 2, 3), payload);
        Path path = dir.resolve("m.safetensors");
        Files.write(path, bytes);
        try (SafetensorsFile file = SafetensorsFile.open(path)) {
            assertTrue(file.isMappable());
            ByteBuffer view = file.map("b");
            assertEquals(ByteOrder.LITTLE_ENDIAN, view.order());
            assertTrue(view.isReadOnly());
            assertTrue(view.isDirect(), "a mapping, not a copy");
            assertEquals(0, view.position());
            assertEquals(24, view.remaining());
            byte[] got = new byte[24];
            view.duplicate().get(got);
            assertArrayEquals(Arrays.copyOfRange(payload, 4, 28), got);
            assertEquals(ByteBuffer.wrap(payload, 4, 4).order(ByteOrder.LITTLE_ENDIAN).getFloat(), view.getFloat(0));
            assertThrows(ReadOnlyBufferException.class, () -> view.put(0, (byte) 0));
            assertEquals(4, file.map("a").remaining());
        }
    }

    @Test
    void closingStopsNewViewsAndLeavesOldOnesReadable() throws IOException {
        Path path = dir.resolve("c.safetensors");
        Files.write(path, SafetensorsFixture.create().tensor("t", "I32", 8).build());
        SafetensorsFile file = SafetensorsFile.open(path);
        ByteBuffer view = file.map("t");
        byte[] before = new byte[32];
        view.duplicate().get(before);
        file.close();
        StorageException e = assertThrows(StorageException.class, () -> file.map("t"));
        assertEquals(ErrorCode.IO_ERROR, e.code());
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        byte[] after = new byte[32];
        view.duplicate().get(after);
        assertArrayEquals(before, after, "the mapping lives until the buffer is collected");
    }

    @Test
    void remoteSourcesCannotBeMapped() throws IOException {
        byte[] bytes = SafetensorsFixture.create().tensor("t", "I32", 8).build();
        try (SafetensorsFile file = SafetensorsFile.open(new MemorySource("mem", bytes))) {
            assertFalse(file.isMappable());
            StorageException e = assertThrows(StorageException.class, () -> file.map("t"));
            assertEquals(ErrorCode.NOT_A_FILE, e.code());
            assertEquals(ErrorCode.TENSOR_NOT_FOUND,
                    assertThrows(TensorAccessException.class, () -> file.map("nope")).code());
        }
    }

    @Test
    void tensorsPastTwoGibibytesAreMappedAndLargerOnesRefused() throws IOException {
        // a sparse 3 GiB file: "huge" fills the first 3 GiB of the payload, "tail" follows it
        long huge = 3L << 30;
        SafetensorsFixture fixture = SafetensorsFixture.create().tensor("huge", "U8", huge).tensor("tail", "I64", 2);
        Path path = TensorFiles.sparse(dir, fixture, huge + 16);
        long tailAt;
        try (SafetensorsFile file = SafetensorsFile.open(path)) {
            tailAt = file.header().payloadOffset() + huge;
        }
        try (RandomAccessFile raf = new RandomAccessFile(path.toFile(), "rw")) {
            raf.seek(tailAt);
            raf.write(ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(-5).putLong(42).array());
        }
        try (SafetensorsFile file = SafetensorsFile.open(path)) {
            ByteBuffer tail = file.map("tail");
            assertEquals(-5, tail.getLong(0));
            assertEquals(42, tail.getLong(8));
            TensorAccessException e = assertThrows(TensorAccessException.class, () -> file.map("huge"));
            assertEquals(ErrorCode.TOO_MANY_ELEMENTS, e.code());
            // a slice of the huge tensor near its end is read through a mapping of its own window
            assertEquals(16, file.slice("huge", Slice.range(huge - 16, huge)).readBytes().remaining());
        }
    }

    @Test
    void manyTensorsShareAFewWindows() throws IOException {
        SafetensorsFixture fixture = SafetensorsFixture.create();
        for (int i = 0; i < 200; i++) {
            fixture.tensor("t" + i, "F32", 1000);
        }
        byte[] bytes = fixture.build();
        Path path = dir.resolve("many.safetensors");
        Files.write(path, bytes);
        try (SafetensorsFile file = SafetensorsFile.open(path)) {
            ByteBuffer first = file.map("t0");
            ByteBuffer last = file.map("t199");
            long offset = file.header().payloadOffset() + file.header().tensor("t199").orElseThrow().begin();
            assertEquals(ByteBuffer.wrap(bytes, (int) offset, 4000), last.duplicate().order(ByteOrder.BIG_ENDIAN));
            assertEquals(4000, first.remaining());
        }
    }

    @Test
    void aFileTruncatedUnderItsMappingIsATruncatedReadNotACrash() throws IOException {
        Path path = dir.resolve("shrinking.safetensors");
        Files.write(path, SafetensorsFixture.create().tensor("a", "U8", 4).tensor("t", "F32", 64 * 1024).build());
        try (SafetensorsFile file = SafetensorsFile.open(path)) {
            assertEquals(64 * 1024, file.readFloat32("t").length, "mapped once, whole");
            try (RandomAccessFile raf = new RandomAccessFile(path.toFile(), "rw")) {
                raf.setLength(4096); // another process cuts the file under the mapping
            }
            StorageException e = assertThrows(StorageException.class, () -> file.readFloat32("t"));
            assertEquals(ErrorCode.TRUNCATED, e.code());
            assertEquals(ErrorCode.TRUNCATED, assertThrows(StorageException.class,
                    () -> file.readBytes("t", ByteBuffer.allocateDirect(4 * 64 * 1024))).code());
            assertEquals(ErrorCode.TRUNCATED, assertThrows(StorageException.class, () -> file.map("a")).code());
            assertEquals(ErrorCode.TRUNCATED, assertThrows(StorageException.class,
                    () -> file.slice("t", Slice.range(0, 4)).readBytes()).code());
        }
    }
}
