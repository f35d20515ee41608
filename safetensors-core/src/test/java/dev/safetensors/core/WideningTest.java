package dev.safetensors.core;

import dev.safetensors.Limits;
import dev.safetensors.fixtures.MemorySource;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.IntUnaryOperator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rule 23: widening is exact for every input of every float-readable dtype, compared as raw bits against
 * {@link ReferenceFloats}, through the public read path (so the 64 KiB block boundaries are crossed too).
 */
class WideningTest {

    @Test
    void f16EveryInput() throws Throwable {
        float[] got = readAll("F16", 2, Limits.STRICT);
        assertAllBits(got, ReferenceFloats::f16, "F16");
        if (ReferenceFloats.JDK_FLOAT16_TO_FLOAT != null) {
            for (int h = 0; h < 65_536; h++) {
                float jdk = (float) ReferenceFloats.JDK_FLOAT16_TO_FLOAT.invokeExact((short) h);
                String input = Integer.toHexString(h);
                // the JDK quiets signalling NaNs (sets the top significand bit); we keep the bits as stored
                int quietBit = Float.isNaN(jdk) ? 0x0040_0000 : 0;
                assertEquals(Float.floatToRawIntBits(jdk), Float.floatToRawIntBits(got[h]) | quietBit,
                        () -> "F16 0x" + input + " against Float.float16ToFloat");
            }
        }
    }

    @Test
    void bf16EveryInput() throws IOException {
        assertAllBits(readAll("BF16", 2, Limits.STRICT), ReferenceFloats::bf16, "BF16");
    }

    @Test
    void f8E4m3EveryInput() throws IOException {
        assertAllBits(readAll("F8_E4M3", 1, Limits.OFFICIAL), ReferenceFloats::e4m3, "F8_E4M3");
    }

    @Test
    void f8E5m2EveryInput() throws IOException {
        assertAllBits(readAll("F8_E5M2", 1, Limits.OFFICIAL), ReferenceFloats::e5m2, "F8_E5M2");
    }

    @Test
    void f8E8m0EveryInput() throws IOException {
        assertAllBits(readAll("F8_E8M0", 1, Limits.OFFICIAL), ReferenceFloats::e8m0, "F8_E8M0");
    }

    @Test
    void f8E4m3fnuzEveryInput() throws IOException {
        assertAllBits(readAll("F8_E4M3FNUZ", 1, Limits.OFFICIAL), ReferenceFloats::e4m3fnuz, "F8_E4M3FNUZ");
    }

    @Test
    void f8E5m2fnuzEveryInput() throws IOException {
        assertAllBits(readAll("F8_E5M2FNUZ", 1, Limits.OFFICIAL), ReferenceFloats::e5m2fnuz, "F8_E5M2FNUZ");
    }

    @Test
    void newerF8Landmarks() throws IOException {
        float[] e8m0 = readAll("F8_E8M0", 1, Limits.OFFICIAL);
        assertEquals(1f, e8m0[127], "2^0");
        assertEquals(0x1p-127f, e8m0[0], "the smallest scale, a float32 subnormal");
        assertEquals(0x1p127f, e8m0[254], "the largest scale");
        assertTrue(Float.isNaN(e8m0[255]));
        float[] e4 = readAll("F8_E4M3FNUZ", 1, Limits.OFFICIAL);
        assertEquals(240f, e4[0x7f], "largest E4M3FNUZ");
        assertEquals(-240f, e4[0xff]);
        assertEquals(0x1p-10f, e4[0x01], "smallest E4M3FNUZ subnormal");
        assertEquals(0x7fc0_0000, Float.floatToRawIntBits(e4[0x80]), "the only NaN");
        float[] e5 = readAll("F8_E5M2FNUZ", 1, Limits.OFFICIAL);
        assertEquals(57344f, e5[0x7f], "largest E5M2FNUZ");
        assertEquals(0x1p-17f, e5[0x01], "smallest E5M2FNUZ subnormal");
        assertEquals(0x7fc0_0000, Float.floatToRawIntBits(e5[0x80]), "the only NaN");
    }

    @Test
    void localFilesWidenThroughTheMappingExactlyAsFromMemory(@TempDir Path dir) throws IOException {
        for (String dtype : new String[] {"F16", "BF16", "F8_E4M3", "F8_E5M2", "F8_E8M0", "F8_E4M3FNUZ",
                "F8_E5M2FNUZ"}) {
            int width = dtype.startsWith("F8") ? 1 : 2;
            byte[] file = everyPattern(dtype, width);
            Path path = dir.resolve(dtype + ".safetensors");
            Files.write(path, file);
            try (SafetensorsFile mem = SafetensorsFile.open(new MemorySource("mem", file), Limits.OFFICIAL);
                 SafetensorsFile local = SafetensorsFile.open(path, Limits.OFFICIAL)) {
                assertTrue(local.isMappable());
                assertArrayEquals(rawBits(mem.readFloat32("all")), rawBits(local.readFloat32("all")), dtype);
                FloatBuffer direct = ByteBuffer.allocateDirect(4 << (8 * width)).asFloatBuffer();
                local.readFloat32("all", direct);
                float[] viaDirect = new float[1 << (8 * width)];
                direct.flip().get(viaDirect);
                assertArrayEquals(rawBits(mem.readFloat32("all")), rawBits(viaDirect), dtype + " into a direct buffer");
            }
        }
    }

    @Test
    void landmarks() throws IOException {
        float[] f16 = readAll("F16", 2, Limits.STRICT);
        assertEquals(0x8000_0000, Float.floatToRawIntBits(f16[0x8000]), "-0.0");
        assertEquals(Float.POSITIVE_INFINITY, f16[0x7c00]);
        assertEquals(Float.NEGATIVE_INFINITY, f16[0xfc00]);
        assertEquals(0x1p-24f, f16[0x0001], "smallest subnormal");
        assertEquals(65504f, f16[0x7bff], "largest finite");
        assertEquals(0xffc0_2000, Float.floatToRawIntBits(f16[0xfe01]), "negative quiet NaN with payload 1");
        assertEquals(0x7f80_2000, Float.floatToRawIntBits(f16[0x7c01]), "signalling NaN stays signalling");
        float[] e4m3 = readAll("F8_E4M3", 1, Limits.OFFICIAL);
        assertEquals(448f, e4m3[0x7e], "largest E4M3FN, exponent field all ones");
        assertEquals(0x1p-9f, e4m3[0x01], "smallest E4M3 subnormal");
        assertTrue(Float.isNaN(e4m3[0x7f]) && Float.isNaN(e4m3[0xff]));
        float[] e5m2 = readAll("F8_E5M2", 1, Limits.OFFICIAL);
        assertEquals(57344f, e5m2[0x7b], "largest finite E5M2");
        assertEquals(Float.NEGATIVE_INFINITY, e5m2[0xfc]);
    }

    @Test
    void f32IsCopiedBitForBit() throws IOException {
        int[] bits = {0, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x7f80_0001, 0xffc0_1234, 0x0000_0001, 0x3f80_0000,
                0x7f7f_ffff, 0x8000_0001};
        ByteBuffer payload = ByteBuffer.allocate(4 * bits.length).order(ByteOrder.LITTLE_ENDIAN);
        payload.asIntBuffer().put(bits);
        byte[] file = TensorFiles.withPayload(SafetensorsFixture.create().tensor("x", "F32", bits.length),
                payload.array());
        try (SafetensorsFile f = SafetensorsFile.open(new MemorySource("mem", file))) {
            float[] got = f.readFloat32("x");
            FloatBuffer direct = ByteBuffer.allocateDirect(4 * bits.length).order(ByteOrder.BIG_ENDIAN)
                    .asFloatBuffer();
            f.readFloat32("x", direct);
            for (int i = 0; i < bits.length; i++) {
                assertEquals(bits[i], Float.floatToRawIntBits(got[i]), "element " + i);
                assertEquals(bits[i], Float.floatToRawIntBits(direct.get(i)), "element " + i + " via a direct buffer");
            }
        }
    }

    /** @return a file with one tensor "all" holding every bit pattern of a {@code width}-byte dtype, increasing */
    private static byte[] everyPattern(String dtype, int width) {
        int count = 1 << (8 * width);
        ByteBuffer payload = ByteBuffer.allocate(count * width).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < count; i++) {
            if (width == 2) {
                payload.putShort((short) i);
            } else {
                payload.put((byte) i);
            }
        }
        return TensorFiles.withPayload(SafetensorsFixture.create().tensor("all", dtype, count), payload.array());
    }

    /** Reads a tensor holding every bit pattern of a {@code width}-byte dtype once, in increasing order. */
    private static float[] readAll(String dtype, int width, Limits limits) throws IOException {
        int count = 1 << (8 * width);
        byte[] file = everyPattern(dtype, width);
        try (SafetensorsFile f = SafetensorsFile.open(new MemorySource("mem", file), limits)) {
            float[] viaArray = f.readFloat32("all");
            FloatBuffer direct = ByteBuffer.allocateDirect(4 * count).asFloatBuffer();
            f.readFloat32("all", direct);
            float[] viaDirect = new float[count];
            direct.flip().get(viaDirect);
            assertArrayEquals(rawBits(viaArray), rawBits(viaDirect), dtype + " direct buffer against array");
            return viaArray;
        }
    }

    private static void assertAllBits(float[] got, IntUnaryOperator reference, String dtype) {
        for (int i = 0; i < got.length; i++) {
            int input = i;
            assertEquals(reference.applyAsInt(i), Float.floatToRawIntBits(got[i]),
                    () -> dtype + " 0x" + Integer.toHexString(input));
        }
    }

    private static int[] rawBits(float[] f) {
        int[] bits = new int[f.length];
        for (int i = 0; i < f.length; i++) {
            bits[i] = Float.floatToRawIntBits(f[i]);
        }
        return bits;
    }
}
