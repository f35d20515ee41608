package dev.safetensors.fuzz.reference;

import java.util.Set;

/**
 * Rule 23's widening to float32, decoded field by field from the IEEE 754 and OCP FP8 definitions: the result is
 * given as raw float32 bits so that comparisons see NaN signs and payloads, -0.0 and subnormals exactly.
 *
 * <p>Rule 23 names F32, F16 and BF16. The README extends {@code readFloat32} to F8_E4M3 and F8_E5M2 under a policy
 * that accepts them (so under the official one), and promises NaN payloads kept, aligned to the top of the float's
 * significand, with E4M3FN's single NaN pattern becoming the quiet NaN of its sign; the reference follows both.
 */
public final class ReferenceWidening {
    /** The dtypes {@code readFloat32} reads. */
    public static final Set<String> READABLE = Set.of("F32", "F16", "BF16", "F8_E4M3", "F8_E5M2", "F8_E8M0",
            "F8_E4M3FNUZ", "F8_E5M2FNUZ");

    private ReferenceWidening() {
    }

    /**
     * @param dtype a name in {@link #READABLE}
     * @param bytes a whole number of little-endian elements
     * @return the float32 bits of each element
     */
    public static int[] float32Bits(String dtype, byte[] bytes) {
        int size = switch (dtype) {
            case "F32" -> 4;
            case "F16", "BF16" -> 2;
            default -> 1;
        };
        int[] out = new int[bytes.length / size];
        for (int i = 0; i < out.length; i++) {
            int raw = 0;
            for (int k = size - 1; k >= 0; k--) {
                raw = raw << 8 | (bytes[i * size + k] & 0xff);
            }
            out[i] = switch (dtype) {
                case "F32" -> raw;
                case "BF16" -> raw << 16;
                case "F16" -> binary16(raw);
                case "F8_E5M2" -> binary16(raw << 8);
                case "F8_E8M0" -> raw == 0xff ? 0x7fc0_0000 : Float.floatToRawIntBits((float) Math.scalb(1.0, raw - 127));
                case "F8_E4M3FNUZ" -> fnuz(raw, 4, 3);
                case "F8_E5M2FNUZ" -> fnuz(raw, 5, 2);
                default -> e4m3(raw);
            };
        }
        return out;
    }

    /** Sign 1, exponent 5 (bias 15), fraction 10. */
    private static int binary16(int h) {
        int sign = (h >>> 15) << 31;
        int exponent = (h >>> 10) & 0x1f;
        int fraction = h & 0x3ff;
        if (exponent == 0x1f) {
            return sign | 0x7f80_0000 | fraction << 13;
        }
        if (exponent == 0) {
            return sign | Float.floatToRawIntBits((float) Math.scalb((double) fraction, -24));
        }
        return sign | (exponent - 15 + 127) << 23 | fraction << 13;
    }

    /** FNUZ (bias 2^(e-1)): no infinities, no -0.0; 0x80 is the only NaN, read as the positive quiet NaN. */
    private static int fnuz(int b, int exponentBits, int fractionBits) {
        if (b == 0x80) {
            return 0x7fc0_0000;
        }
        int bias = 1 << (exponentBits - 1);
        int sign = (b >>> 7) << 31;
        int exponent = (b >>> fractionBits) & ((1 << exponentBits) - 1);
        int fraction = b & ((1 << fractionBits) - 1);
        double value = exponent == 0 ? Math.scalb((double) fraction, 1 - bias - fractionBits)
                : Math.scalb(1.0 + fraction / (double) (1 << fractionBits), exponent - bias);
        return sign | Float.floatToRawIntBits((float) value);
    }

    /** OCP E4M3FN: sign 1, exponent 4 (bias 7), fraction 3; no infinities; S.1111.111 is NaN. */
    private static int e4m3(int b) {
        int sign = (b >>> 7) << 31;
        int exponent = (b >>> 3) & 0xf;
        int fraction = b & 0x7;
        if (exponent == 0xf && fraction == 0x7) {
            return sign | 0x7fc0_0000;
        }
        if (exponent == 0) {
            return sign | Float.floatToRawIntBits((float) Math.scalb((double) fraction, -9));
        }
        return sign | (exponent - 7 + 127) << 23 | fraction << 20;
    }
}
