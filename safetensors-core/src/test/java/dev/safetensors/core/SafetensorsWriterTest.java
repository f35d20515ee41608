package dev.safetensors.core;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.SafetensorsException;
import dev.safetensors.SafetensorsHeader;
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
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The canonical form, round trips, and refusals before anything is written. */
class SafetensorsWriterTest {
    private static final long[] SCALAR = {};

    @TempDir
    Path dir;

    @Test
    void writesTheDocumentedCanonicalForm() throws IOException {
        byte[] file = bytes(SafetensorsWriter.create()
                .metadata("format", "pt")
                .metadata("note", "a \"quoted\"\tvalue/é")
                .tensor("b", DType.I16, new long[] {2}, new byte[] {1, 0, 2, 0})
                .tensor("a", SCALAR, new float[] {1f}));
        String json = "{\"__metadata__\":{\"format\":\"pt\",\"note\":\"a \\\"quoted\\\"\\tvalue/é\"},"
                + "\"b\":{\"dtype\":\"I16\",\"shape\":[2],\"data_offsets\":[0,4]},"
                + "\"a\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[4,8]}}";
        byte[] utf8 = json.getBytes(StandardCharsets.UTF_8);
        int padded = (utf8.length + 7) / 8 * 8;
        ByteBuffer expected = ByteBuffer.allocate(8 + padded + 8).order(ByteOrder.LITTLE_ENDIAN);
        expected.putLong(padded).put(utf8);
        while (expected.position() < 8 + padded) {
            expected.put((byte) ' ');
        }
        expected.put(new byte[] {1, 0, 2, 0}).putFloat(1f);
        assertArrayEquals(expected.array(), file);
    }

    @Test
    void roundTripsEveryStrictDtypeWithMetadata() throws IOException {
        SafetensorsWriter writer = SafetensorsWriter.create().metadata("k", "v").metadata("empty", "");
        int n = 0;
        for (DType t : DType.strictSet()) {
            writer.tensor(t.name().toLowerCase() + ".w", t, new long[] {3, 2}, SafetensorsFixture.payload(6 * t.byteSize()));
            n++;
        }
        writer.tensor("zero", DType.F32, new long[] {0, 5}, new byte[0]);
        writer.tensor("floats", new long[] {2, 2}, new float[] {1.5f, -0f, Float.NaN, Float.NEGATIVE_INFINITY});
        byte[] file = bytes(writer);

        assertEquals(0, (8 + readLongLe(file)) % 8, "payload starts 8-aligned");
        try (SafetensorsFile read = SafetensorsFile.open(new MemorySource("mem", file))) {
            SafetensorsHeader h = read.header();
            assertEquals(Map.of("k", "v", "empty", ""), h.metadata());
            assertEquals(List.of("k", "empty"), List.copyOf(h.metadata().keySet()));
            assertEquals(n + 2, h.tensors().size());
            assertEquals(writer.header().tensors(), h.tensors(), "header() describes what is written");
            for (DType t : DType.strictSet()) {
                TensorInfo info = h.tensor(t.name().toLowerCase() + ".w").orElseThrow();
                assertEquals(t, info.dtype());
                assertArrayEquals(new long[] {3, 2}, info.shape());
                assertArrayEquals(SafetensorsFixture.payload(6 * t.byteSize()), read.readBytes(info.name()).array());
            }
            assertEquals(0, read.header().tensor("zero").orElseThrow().byteLength());
            float[] floats = read.readFloat32("floats");
            assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(floats[1]));
            assertEquals(Float.floatToRawIntBits(Float.NaN), Float.floatToRawIntBits(floats[2]));
            assertEquals(Float.NEGATIVE_INFINITY, floats[3]);
        }
    }

    @Test
    void rewritingAFixtureFileGivesTheSameBytes() throws IOException {
        // the fixture writes compact JSON, metadata first, fields in canonical order and space padding: canonical
        byte[] original = SafetensorsFixture.create()
                .metadata("format", "pt").metadata("name", "π and \"quotes\"")
                .tensor("embed.weight", "BF16", 7, 3)
                .tensor("embed.bias", "F16", 3)
                .tensor("step", "I64")
                .tensor("mask", "BOOL", 5)
                .tensor("nothing", "U8", 0)
                .tensor("w/é😀", "F32", 2, 2)
                .build();
        assertArrayEquals(original, bytes(RoundTrip.rewrite(original, Limits.STRICT)));
    }

    @Test
    void outputGoesToStreamsChannelsAndFilesAlike() throws IOException {
        SafetensorsWriter writer = SafetensorsWriter.create().tensor("x", new long[] {3}, new float[] {1, 2, 3});
        byte[] viaChannel = bytes(writer);
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        assertEquals(viaChannel.length, writer.writeTo(stream));
        assertArrayEquals(viaChannel, stream.toByteArray());

        Path path = dir.resolve("out.safetensors");
        Files.write(path, new byte[] {1, 2, 3});
        assertEquals(viaChannel.length, writer.writeTo(path));
        assertArrayEquals(viaChannel, Files.readAllBytes(path), "an existing file is replaced");
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(path), files.toList(), "no temporary file is left behind");
        }
    }

    @Test
    void largeFloatTensorsAreWrittenInBlocks() throws IOException {
        float[] values = new float[100_003];
        for (int i = 0; i < values.length; i++) {
            values[i] = i * 0.25f - 7;
        }
        byte[] file = bytes(SafetensorsWriter.create().tensor("v", new long[] {values.length}, values));
        try (SafetensorsFile read = SafetensorsFile.open(new MemorySource("mem", file))) {
            assertArrayEquals(values, read.readFloat32("v"));
        }
    }

    @Test
    void refusesWhatTheValidatorRefusesBeforeWritingAnything() {
        byte[] two = new byte[2];
        assertRefused(ErrorCode.DUPLICATE_KEY, SafetensorsWriter.create()
                .tensor("w", DType.U8, new long[] {2}, two).tensor("w", DType.U8, new long[] {2}, two));
        for (SafetensorsWriter reserved : List.of(SafetensorsWriter.create(),
                SafetensorsWriter.create().metadata("k", "v"))) {
            // refused for its name, with or without metadata, not for the fields a metadata object cannot hold
            SafetensorsException e = assertRefused(ErrorCode.INVALID_METADATA, reserved
                    .tensor("__metadata__", DType.U8, new long[] {2}, two));
            assertTrue(e.getMessage().contains("reserved") && !e.getMessage().contains("shape"), e.getMessage());
        }
        assertRefused(ErrorCode.STRING_TOO_LONG, SafetensorsWriter.create()
                .tensor("n".repeat(1025), DType.U8, new long[] {2}, two));
        assertRefused(ErrorCode.STRING_TOO_LONG, SafetensorsWriter.create().metadata("k", "v".repeat(65_537)));
        assertRefused(ErrorCode.LENGTH_MISMATCH, SafetensorsWriter.create()
                .tensor("w", DType.F32, new long[] {2}, new byte[7]));
        assertRefused(ErrorCode.LENGTH_MISMATCH, SafetensorsWriter.create()
                .tensor("w", new long[] {2, 2}, new float[3]));
        assertRefused(ErrorCode.INVALID_NUMBER, SafetensorsWriter.create()
                .tensor("w", DType.U8, new long[] {-2}, two));
        assertRefused(ErrorCode.RANK_TOO_LARGE, SafetensorsWriter.create()
                .tensor("w", DType.U8, new long[17], new byte[0]));
        assertRefused(ErrorCode.INVALID_UTF8, SafetensorsWriter.create()
                .tensor("bad\uD800", DType.U8, new long[] {2}, two));
        assertRefused(ErrorCode.INVALID_UTF8, SafetensorsWriter.create().metadata("k", "\uDC00"));
        SafetensorsWriter many = SafetensorsWriter.create(Limits.builder().maxEntries(2).build()).metadata("k", "v");
        many.tensor("a", DType.U8, new long[] {0}, new byte[0]).tensor("b", DType.U8, new long[] {0}, new byte[0]);
        assertRefused(ErrorCode.TOO_MANY_ENTRIES, many);

        SafetensorsWriter f8 = SafetensorsWriter.create().tensor("w", DType.F8_E4M3, new long[] {2}, two);
        assertInstanceOf(UnsupportedDtypeException.class, assertRefused(ErrorCode.UNSUPPORTED_DTYPE, f8));
    }

    @Test
    void theOfficialPolicyWritesWhatItAccepts() throws IOException {
        byte[] file = bytes(SafetensorsWriter.create(Limits.OFFICIAL)
                .tensor("w", DType.F8_E4M3, new long[] {2}, new byte[] {0x38, (byte) 0xc0}));
        try (SafetensorsFile read = SafetensorsFile.open(new MemorySource("mem", file), Limits.OFFICIAL)) {
            assertArrayEquals(new float[] {1f, -2f}, read.readFloat32("w"));
        }
    }

    private SafetensorsException assertRefused(ErrorCode code, SafetensorsWriter writer) {
        SafetensorsException e = assertThrows(SafetensorsException.class, writer::header);
        assertEquals(code, e.code(), e.getMessage());

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(code, assertThrows(SafetensorsException.class, () -> writer.writeTo(out)).code());
        assertEquals(0, out.size(), "nothing written to a stream");
        Path path = dir.resolve("refused.safetensors");
        assertEquals(code, assertThrows(SafetensorsException.class, () -> writer.writeTo(path)).code());
        assertFalse(Files.exists(path), "no file created");
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(0, files.count(), "no temporary file either");
        } catch (IOException io) {
            throw new AssertionError(io);
        }
        return e;
    }

    private static byte[] bytes(SafetensorsWriter writer) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long n = writer.writeTo(Channels.newChannel(out));
        assertEquals(n, out.size());
        return out.toByteArray();
    }

    private static long readLongLe(byte[] file) {
        return ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }
}
