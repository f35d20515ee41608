package dev.safetensors.core;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Independent reference values for the widening tests, written from the format definitions in the most direct way
 * (sign, exponent and significand fields, value computed in double arithmetic), sharing nothing with
 * {@link Float32Widening}. Results are raw float32 bits, so NaN payloads and signs can be compared exactly.
 */
final class ReferenceFloats {
    /** {@code Float.float16ToFloat(short)} on JDK 20 and later; {@code null} on older runtimes. */
    static final MethodHandle JDK_FLOAT16_TO_FLOAT = jdkFloat16ToFloat();

    private ReferenceFloats() {
    }

    /** IEEE 754 binary16: 1 sign, 5 exponent (bias 15), 10 significand bits. */
    static int f16(int h) {
        return ieee(h >>> 15 & 1, h >>> 10 & 0x1f, h & 0x3ff, 5, 10);
    }

    /** bfloat16: the upper half of a float32, by definition. */
    static int bf16(int h) {
        return h << 16;
    }

    /** OCP FP8 E5M2: 1 sign, 5 exponent (bias 15), 2 significand bits, IEEE-like infinities and NaNs. */
    static int e5m2(int b) {
        return ieee(b >>> 7 & 1, b >>> 2 & 0x1f, b & 3, 5, 2);
    }

    /**
     * OCP FP8 E4M3FN: 1 sign, 4 exponent (bias 7), 3 significand bits; no infinities, and S.1111.111 is the only NaN,
     * which the library widens to the canonical quiet NaN with the same sign.
     */
    static int e4m3(int b) {
        int sign = b >>> 7 & 1;
        int exponent = b >>> 3 & 0xf;
        int significand = b & 7;
        if (exponent == 15 && significand == 7) {
            return sign << 31 | 0x7fc0_0000;
        }
        return bits(sign, value(exponent, significand, 3, 7));
    }

    /** OCP MX E8M0 (scale): 8 exponent bits, bias 127, no sign and no significand; 0xFF is NaN, read as the quiet NaN. */
    static int e8m0(int b) {
        if (b == 0xff) {
            return 0x7fc0_0000;
        }
        return bits(0, Math.pow(2, b - 127));
    }

    /** FNUZ E4M3 (as in ml_dtypes and PyTorch): bias 8, no infinities, no -0.0; 0x80 is the only NaN. */
    static int e4m3fnuz(int b) {
        return fnuz(b, 4, 3);
    }

    /** FNUZ E5M2: bias 16, no infinities, no -0.0; 0x80 is the only NaN. */
    static int e5m2fnuz(int b) {
        return fnuz(b, 5, 2);
    }

    private static int fnuz(int b, int exponentBits, int significandBits) {
        if (b == 0x80) {
            return 0x7fc0_0000; // as PyTorch's fp8e4m3fnuz_to_fp32_value: the positive quiet NaN
        }
        int sign = b >>> 7 & 1;
        int exponent = b >>> significandBits & ((1 << exponentBits) - 1);
        int significand = b & ((1 << significandBits) - 1);
        return bits(sign, value(exponent, significand, significandBits, 1 << (exponentBits - 1)));
    }

    /** A format with IEEE 754 rules: the all-ones exponent is infinity (significand 0) or NaN (payload kept). */
    private static int ieee(int sign, int exponent, int significand, int exponentBits, int significandBits) {
        int maxExponent = (1 << exponentBits) - 1;
        if (exponent == maxExponent) {
            return sign << 31 | 0x7f80_0000 | significand << (23 - significandBits);
        }
        return bits(sign, value(exponent, significand, significandBits, maxExponent >> 1));
    }

    /** The magnitude of a finite value: normal when the exponent field is non-zero, subnormal otherwise. */
    private static double value(int exponent, int significand, int significandBits, int bias) {
        double fraction = significand / (double) (1 << significandBits);
        return exponent == 0
                ? Math.scalb(fraction, 1 - bias)
                : Math.scalb(1 + fraction, exponent - bias);
    }

    private static int bits(int sign, double magnitude) {
        float f = (float) magnitude; // exact: every value of these formats is a float32
        if (f != magnitude) {
            throw new AssertionError(magnitude + " is not a float32");
        }
        return Float.floatToRawIntBits(sign == 1 ? -f : f);
    }

    private static MethodHandle jdkFloat16ToFloat() {
        try {
            return MethodHandles.publicLookup().findStatic(Float.class, "float16ToFloat",
                    MethodType.methodType(float.class, short.class));
        } catch (NoSuchMethodException | IllegalAccessException e) {
            return null;
        }
    }
}
