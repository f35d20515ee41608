package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.SafetensorsException;
import dev.safetensors.SourceStatistics;
import dev.safetensors.StorageException;
import dev.safetensors.TensorAccessException;
import dev.safetensors.TensorInfo;
import dev.safetensors.UnsupportedDtypeException;
import dev.safetensors.fixtures.MemorySource;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Opening, copying, reading bytes, bounds and closing (rules 22 and 23). */
class SafetensorsFileTest {
    /** Three tensors: one smaller than a block, one spanning several blocks and ending mid-block, one empty. */
    private static final SafetensorsFixture FIXTURE = SafetensorsFixture.create()
            .metadata("format", "pt")
            .tensor("small", "I32", 3)
            .tensor("large", "U8", 3 * 65_536 + 17)
            .tensor("empty", "F32", 0, 4);
    private static final byte[] FILE = FIXTURE.build();

    @TempDir
    Path dir;

    @Test
    void copiesTheOriginalBytesThroughOneRangePerTensor() throws IOException {
        MemorySource source = new MemorySource("mem", FILE);
        try (SafetensorsFile file = SafetensorsFile.open(source)) {
            for (TensorInfo t : file.header().tensors()) {
                byte[] expected = expected(file, t);
                int before = source.rangesOpened();

                ByteArrayOutputStream viaChannel = new ByteArrayOutputStream();
                assertEquals(t.byteLength(), file.copyTensorTo(t.name(), Channels.newChannel(viaChannel)));
                assertArrayEquals(expected, viaChannel.toByteArray(), t.name());

                ByteArrayOutputStream viaStream = new ByteArrayOutputStream();
                assertEquals(t.byteLength(), file.copyTensorTo(t.name(), viaStream));
                assertArrayEquals(expected, viaStream.toByteArray(), t.name());

                ByteBuffer bytes = file.readBytes(t.name());
                assertEquals(ByteOrder.LITTLE_ENDIAN, bytes.order());
                assertEquals(0, bytes.position());
                byte[] read = new byte[bytes.remaining()];
                bytes.get(read);
                assertArrayEquals(expected, read, t.name());

                // an empty tensor, or one within the bytes read with the header, needs no request at all
                boolean inPrefix = file.header().payloadOffset() + t.end() <= Limits.STRICT.prefetchBytes();
                assertEquals(inPrefix || t.byteLength() == 0 ? 0 : 3, source.rangesOpened() - before, t.name());
            }
        }
    }

    @Test
    void readsBytesInLittleEndianOrder() throws IOException {
        byte[] payload = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0x0102030405060708L).array();
        byte[] bytes = TensorFiles.withPayload(SafetensorsFixture.create().tensor("x", "I64"), payload);
        try (SafetensorsFile file = SafetensorsFile.open(new MemorySource("mem", bytes))) {
            assertEquals(0x0102030405060708L, file.readBytes("x").getLong());
        }
    }

    @Test
    void opensLocalFiles() throws IOException {
        Path path = dir.resolve("f.safetensors");
        Files.write(path, FILE);
        try (SafetensorsFile file = SafetensorsFile.open(path)) {
            assertEquals("pt", file.header().metadata().get("format"));
            assertArrayEquals(expected(file, file.header().tensor("large").orElseThrow()),
                    file.readBytes("large").array());
        }
    }

    @Test
    void unknownNamesAreTensorNotFound() throws IOException {
        try (SafetensorsFile file = SafetensorsFile.open(new MemorySource("mem", FILE))) {
            for (ThrowingRead read : new ThrowingRead[] {
                    () -> file.readBytes("nope"),
                    () -> file.readFloat32("nope"),
                    () -> file.readFloat32("nope", FloatBuffer.allocate(4)),
                    () -> file.readBytes("nope", ByteBuffer.allocate(4)),
                    () -> file.slice("nope"),
                    () -> file.copyTensorTo("nope", new ByteArrayOutputStream())}) {
                TensorAccessException e = assertThrows(TensorAccessException.class, read::run);
                assertEquals(ErrorCode.TENSOR_NOT_FOUND, e.code());
                assertEquals("nope", e.tensor().orElseThrow());
                assertEquals("mem", e.source());
            }
        }
    }

    @Test
    void closingClosesAnOwnedSourceOnly() throws IOException {
        MemorySource owned = new MemorySource("owned", FILE);
        SafetensorsFile file = SafetensorsFile.open(owned);
        file.close();
        assertTrue(owned.isClosed());
        StorageException e = assertThrows(StorageException.class, () -> file.readBytes("small"));
        assertEquals(ErrorCode.IO_ERROR, e.code());
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertEquals(ErrorCode.IO_ERROR, assertThrows(StorageException.class,
                () -> file.copyTensorTo("small", new ByteArrayOutputStream())).code());
        assertEquals(3, file.header().tensors().size(), "the header stays available");
        file.close();

        MemorySource callers = new MemorySource("callers", FILE);
        try (SafetensorsFile leaveOpen = SafetensorsFile.open(callers, Limits.STRICT, false)) {
            assertEquals(3, leaveOpen.header().tensors().size());
        }
        assertFalse(callers.isClosed());
        assertEquals(FILE.length, callers.size(), "the caller's source is still usable");
    }

    @Test
    void anOwnedSourceIsClosedWhenItsHeaderIsInvalid() {
        MemorySource owned = new MemorySource("bad", SafetensorsFixture.file("{\"a\":1}", 0));
        assertThrows(SafetensorsException.class, () -> SafetensorsFile.open(owned));
        assertTrue(owned.isClosed());
        MemorySource callers = new MemorySource("bad", SafetensorsFixture.file("{\"a\":1}", 0));
        assertThrows(SafetensorsException.class, () -> SafetensorsFile.open(callers, Limits.STRICT, false));
        assertFalse(callers.isClosed());
    }

    @Test
    void readBytesRefusesTensorsNoBufferHolds() throws IOException {
        long length = Integer.MAX_VALUE - 7L;
        Path path = TensorFiles.sparse(dir, SafetensorsFixture.create().tensor("huge", "U8", length), length);
        try (SafetensorsFile file = SafetensorsFile.open(path)) {
            TensorAccessException e = assertThrows(TensorAccessException.class, () -> file.readBytes("huge"));
            assertEquals(ErrorCode.TOO_MANY_ELEMENTS, e.code());
            assertTrue(e.getMessage().contains("copyTensorTo"), e.getMessage());
        }
    }

    @Test
    void readFloat32RefusesMoreElementsThanTheLimitBeforeAllocating() throws IOException {
        // 2^27 + 1 BF16 elements: one over the default limit; the 256 MiB payload is a hole in a sparse file
        long count = Limits.STRICT.maxFloat32Elements() + 1;
        Path path = TensorFiles.sparse(dir, SafetensorsFixture.create().tensor("big", "BF16", count), 2 * count);
        try (FileSource source = FileSource.open(path);
             SafetensorsFile file = SafetensorsFile.open(source, Limits.STRICT, false)) {
            SourceStatistics afterHeader = source.statistics();
            TensorAccessException e = assertThrows(TensorAccessException.class, () -> file.readFloat32("big"));
            assertEquals(ErrorCode.TOO_MANY_ELEMENTS, e.code());
            assertEquals("big", e.tensor().orElseThrow());
            assertEquals(afterHeader, source.statistics(), "nothing was read");
        }
        Limits tight = Limits.builder().maxFloat32Elements(3).build();
        byte[] small = SafetensorsFixture.create().tensor("three", "F32", 3).tensor("four", "F32", 4).build();
        try (SafetensorsFile file = SafetensorsFile.open(new MemorySource("mem", small), tight)) {
            assertEquals(3, file.readFloat32("three").length);
            assertEquals(ErrorCode.TOO_MANY_ELEMENTS,
                    assertThrows(TensorAccessException.class, () -> file.readFloat32("four")).code());
            assertEquals(4, file.readFloat32("four", FloatBuffer.allocate(4)), "the caller's buffer is the bound");
        }
    }

    @Test
    void readFloat32RefusesOtherDtypes() throws IOException {
        SafetensorsFixture f = SafetensorsFixture.create();
        for (String dtype : new String[] {"BOOL", "U8", "I8", "I16", "U16", "I32", "U32", "F64", "I64", "U64"}) {
            f.tensor(dtype.toLowerCase(), dtype, 2);
        }
        try (SafetensorsFile file = SafetensorsFile.open(new MemorySource("mem", f.build()))) {
            for (TensorInfo t : file.header().tensors()) {
                UnsupportedDtypeException e = assertThrows(UnsupportedDtypeException.class,
                        () -> file.readFloat32(t.name()));
                assertEquals(ErrorCode.NOT_FLOAT_READABLE, e.code());
                assertTrue(e.getMessage().contains(t.dtype().name()), e.getMessage());
                assertEquals(ErrorCode.NOT_FLOAT_READABLE, assertThrows(UnsupportedDtypeException.class,
                        () -> file.readFloat32(t.name(), FloatBuffer.allocate(2))).code());
            }
        }
    }

    @Test
    void readFloat32IntoABufferChecksRoomFirst() throws IOException {
        float[] values = {1.5f, -2f, Float.NaN, 0f, 7f};
        ByteBuffer payload = ByteBuffer.allocate(20).order(ByteOrder.LITTLE_ENDIAN);
        payload.asFloatBuffer().put(values);
        byte[] bytes = TensorFiles.withPayload(SafetensorsFixture.create().tensor("v", "F32", 5), payload.array());
        try (SafetensorsFile file = SafetensorsFile.open(new MemorySource("mem", bytes))) {
            FloatBuffer tooSmall = FloatBuffer.allocate(4);
            assertEquals(ErrorCode.TOO_MANY_ELEMENTS,
                    assertThrows(TensorAccessException.class, () -> file.readFloat32("v", tooSmall)).code());
            assertEquals(0, tooSmall.position());

            FloatBuffer heap = FloatBuffer.allocate(7).position(1);
            assertEquals(5, file.readFloat32("v", heap));
            assertEquals(6, heap.position());
            assertArrayEquals(values, Arrays.copyOfRange(heap.array(), 1, 6));

            FloatBuffer direct = ByteBuffer.allocateDirect(40).asFloatBuffer();
            file.readFloat32("v", direct);
            float[] got = new float[5];
            direct.flip().get(got);
            assertArrayEquals(values, got);
        }
    }

    private static byte[] expected(SafetensorsFile file, TensorInfo t) {
        int from = (int) (file.header().payloadOffset() + t.begin());
        return Arrays.copyOfRange(FILE, from, from + (int) t.byteLength());
    }

    @FunctionalInterface
    private interface ThrowingRead {
        void run() throws IOException;
    }
}
