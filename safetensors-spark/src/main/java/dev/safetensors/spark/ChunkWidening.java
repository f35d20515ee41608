package dev.safetensors.spark;

import dev.safetensors.DType;

/**
 * Widens a chunk of little-endian F32, F16 or BF16 elements to floats, exactly as
 * {@code SafetensorsFile.readFloat32} does (NaN payloads, infinities, subnormals and -0.0 kept), so a tensor too
 * large for one row can be widened chunk by chunk.
 */
final class ChunkWidening {
    private ChunkWidening() {
    }

    static boolean supports(DType dtype) {
        return dtype == DType.F32 || dtype == DType.F16 || dtype == DType.BF16;
    }

    static float[] widen(DType dtype, byte[] b) {
        int size = dtype.byteSize();
        float[] out = new float[b.length / size];
        for (int i = 0, at = 0; i < out.length; i++, at += size) {
            int lo = b[at] & 0xff;
            int hi = b[at + 1] & 0xff;
            out[i] = switch (dtype) {
                case F32 -> Float.intBitsToFloat(lo | hi << 8 | (b[at + 2] & 0xff) << 16 | (b[at + 3] & 0xff) << 24);
                case BF16 -> Float.intBitsToFloat((lo | hi << 8) << 16);
                default -> f16(lo | hi << 8);
            };
        }
        return out;
    }

    /** IEEE 754 binary16 to binary32; exact, as every half value is a float. */
    static float f16(int h) {
        int sign = (h & 0x8000) << 16;
        int exp = (h >>> 10) & 0x1f;
        int mant = h & 0x3ff;
        if (exp == 0x1f) {
            return Float.intBitsToFloat(sign | 0x7f800000 | mant << 13);
        }
        if (exp == 0) {
            float magnitude = mant * 0x1p-24f;
            return sign == 0 ? magnitude : -magnitude;
        }
        return Float.intBitsToFloat(sign | (exp + 112) << 23 | mant << 13);
    }
}
