package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.SourceStatistics;
import dev.safetensors.TensorAccessException;
import dev.safetensors.TensorInfo;
import dev.safetensors.fixtures.MemorySource;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Reads into the caller's buffers, and tensors served from the bytes read with the header (issue 12, item 5). */
class CallerBufferTest {
    private static final byte[] FILE = SafetensorsFixture.create()
            .tensor("small", "I16", 10)
            .tensor("large", "U8", 300_000)
            .build();

    @TempDir
    Path dir;

    @Test
    void readBytesFillsHeapAndDirectBuffersFromTheirPosition() throws IOException {
        Path path = dir.resolve("f.safetensors");
        Files.write(path, FILE);
        for (boolean local : new boolean[] {false, true}) {
            try (SafetensorsFile file = local ? SafetensorsFile.open(path)
                    : SafetensorsFile.open(MemorySource.remoteLike(FILE))) {
                for (TensorInfo t : file.header().tensors()) {
                    byte[] expected = expected(file, t);
                    for (ByteBuffer dst : new ByteBuffer[] {ByteBuffer.allocate(expected.length + 10),
                            ByteBuffer.allocateDirect(expected.length + 10)}) {
                        dst.position(5);
                        assertEquals(expected.length, file.readBytes(t.name(), dst));
                        assertEquals(5 + expected.length, dst.position());
                        byte[] got = new byte[expected.length];
                        dst.flip().position(5);
                        dst.get(got);
                        assertArrayEquals(expected, got, t.name() + (local ? " local " : " remote ") + dst);
                    }
                }
            }
        }
    }

    @Test
    void readBytesRefusesBuffersTooSmallOrReadOnly() throws IOException {
        try (SafetensorsFile file = SafetensorsFile.open(MemorySource.remoteLike(FILE))) {
            ByteBuffer small = ByteBuffer.allocate(19);
            TensorAccessException e = assertThrows(TensorAccessException.class, () -> file.readBytes("small", small));
            assertEquals(ErrorCode.TOO_MANY_ELEMENTS, e.code());
            assertEquals("small", e.tensor().orElseThrow());
            assertEquals(0, small.position(), "nothing written");
            assertThrows(ReadOnlyBufferException.class,
                    () -> file.readBytes("small", ByteBuffer.allocate(20).asReadOnlyBuffer()));
        }
    }

    @Test
    void aTensorWithinTheHeaderBytesCostsNoRequest() throws IOException {
        MemorySource source = MemorySource.remoteLike(FILE);
        try (SafetensorsFile file = SafetensorsFile.open(source)) {
            SourceStatistics afterOpen = source.statistics();
            assertEquals(1, afterOpen.requests(), "the header: one read");
            byte[] expected = expected(file, file.header().tensor("small").orElseThrow());
            assertArrayEquals(expected, array(file.readBytes("small")));
            ByteArrayOutputStream copy = new ByteArrayOutputStream();
            file.copyTensorTo("small", copy);
            assertArrayEquals(expected, copy.toByteArray());
            file.readBytes("small", ByteBuffer.allocateDirect(20));
            assertEquals(afterOpen, source.statistics(), "no request for a tensor the header read held");

            file.readBytes("large");
            assertEquals(afterOpen.requests() + 1, source.statistics().requests(), "one for a tensor past it");
        }
        MemorySource tight = MemorySource.remoteLike(FILE);
        try (SafetensorsFile file = SafetensorsFile.open(tight, Limits.builder().prefetchBytes(16).build())) {
            long afterOpen = tight.statistics().requests();
            file.readBytes("small");
            assertEquals(afterOpen + 1, tight.statistics().requests(), "a prefix that ends before the tensor");
        }
    }

    private static byte[] expected(SafetensorsFile file, TensorInfo t) {
        int from = (int) (file.header().payloadOffset() + t.begin());
        return Arrays.copyOfRange(FILE, from, from + (int) t.byteLength());
    }

    private static byte[] array(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }
}
