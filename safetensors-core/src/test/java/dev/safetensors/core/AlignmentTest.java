package dev.safetensors.core;

import dev.safetensors.DType;
import dev.safetensors.Limits;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Every layout passes the strict and the official validator; what each one guarantees holds. */
class AlignmentTest {
    @TempDir
    Path dir;

    /** Mixed dtypes and odd lengths, in an order that aligns nothing by chance. */
    private static SafetensorsWriter mixed() {
        return SafetensorsWriter.create().metadata("format", "pt")
                .tensor("u8.odd", DType.U8, new long[] {3}, new byte[] {1, 2, 3})
                .tensor("f16", DType.F16, new long[] {5}, StreamingWriterTest.random(10, 1))
                .tensor("f64", DType.F64, new long[] {2}, StreamingWriterTest.random(16, 2))
                .tensor("f32.big", DType.F32, new long[] {32}, StreamingWriterTest.random(128, 3))
                .tensor("i32", DType.I32, new long[] {3}, StreamingWriterTest.random(12, 4))
                .tensor("bf16.big", DType.BF16, new long[] {64}, StreamingWriterTest.random(128, 5));
    }

    private SafetensorsHeader write(Alignment a, String name) throws IOException {
        Path p = dir.resolve(name);
        mixed().alignment(a).writeTo(p);
        SafetensorsHeader strict = Safetensors.readHeader(p, Limits.STRICT);
        Safetensors.readHeader(p, Limits.OFFICIAL);
        try (SafetensorsFile f = SafetensorsFile.open(p)) {
            for (TensorInfo t : strict.tensors()) {
                assertEquals(java.nio.ByteBuffer.wrap(bytesOf(t.name())), f.readBytes(t.name()), t.name());
            }
        }
        return strict;
    }

    private static byte[] bytesOf(String name) throws IOException {
        try (SafetensorsFile f = SafetensorsFile.open(new dev.safetensors.fixtures.MemorySource("m",
                toBytes(mixed())))) {
            java.nio.ByteBuffer b = f.readBytes(name);
            byte[] out = new byte[b.remaining()];
            b.get(out);
            return out;
        }
    }

    private static byte[] toBytes(SafetensorsWriter w) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        w.writeTo(out);
        return out.toByteArray();
    }

    @Test
    void theDefaultKeepsInsertionOrder() throws IOException {
        SafetensorsHeader h = write(Alignment.INSERTION_ORDER, "default.safetensors");
        assertEquals(List.of("u8.odd", "f16", "f64", "f32.big", "i32", "bf16.big"), names(h));
        assertEquals(0, h.payloadOffset() % 8);
    }

    @Test
    void dtypeOrderStartsEveryTensorAtAMultipleOfItsElementSize() throws IOException {
        SafetensorsHeader h = write(Alignment.DTYPE, "dtype.safetensors");
        assertEquals(List.of("f64", "f32.big", "i32", "f16", "bf16.big", "u8.odd"), names(h));
        assertEquals(0, h.payloadOffset() % 8, "the header is padded to 8, as the official writer does");
        for (TensorInfo t : h.tensors()) {
            assertEquals(0, (h.payloadOffset() + t.begin()) % t.dtype().byteSize(), t.name());
        }
    }

    @Test
    void byteAlignmentStartsThePayloadAndEveryWholeMultipleTensorAtN() throws IOException {
        SafetensorsHeader h = write(Alignment.bytes(64), "n64.safetensors");
        assertEquals(0, h.payloadOffset() % 64, "the header is padded with spaces to 64");
        assertEquals(List.of("f32.big", "bf16.big", "f64", "i32", "f16", "u8.odd"), names(h));
        for (TensorInfo t : h.tensors()) {
            long start = h.payloadOffset() + t.begin();
            assertEquals(0, start % t.dtype().byteSize(), t.name());
            if (t.name().endsWith(".big") || t.name().equals("f64")) {
                assertEquals(0, start % 64, t.name() + ": the multiples of 64 and the first other tensor");
            }
        }
    }

    @Test
    void theSameCallsGiveTheSameBytes() throws IOException {
        assertArrayEquals(toBytes(mixed().alignment(Alignment.bytes(64))),
                toBytes(mixed().alignment(Alignment.bytes(64))));
    }

    @Test
    void anAlignmentThatIsNotAPowerOfTwoFromEightIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Alignment.bytes(48));
        assertThrows(IllegalArgumentException.class, () -> Alignment.bytes(4));
        assertThrows(IllegalArgumentException.class, () -> Alignment.bytes(Alignment.MAX_BYTES * 2));
        assertEquals(64, Alignment.bytes(64).payloadMultiple());
    }

    private static List<String> names(SafetensorsHeader h) {
        return h.tensors().stream().sorted(java.util.Comparator.comparingLong(TensorInfo::begin))
                .map(TensorInfo::name).toList();
    }
}
