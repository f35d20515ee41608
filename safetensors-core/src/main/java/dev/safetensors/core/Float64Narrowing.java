package dev.safetensors.core;

import dev.safetensors.DType;

/**
 * Narrowing of doubles to F16 (IEEE 754 binary16) and BF16 (bfloat16) in one rounding, straight from the double's
 * bits: round-to-nearest-even on the whole double, subnormal targets rounded the same way, values at least halfway
 * past the largest finite target to infinity, signs, zeros and infinities kept, and a NaN kept a NaN of the same
 * sign, made quiet, with the top bits of its payload. This is what NumPy's {@code astype(float16)} does to a
 * float64 array; going through float32 first ({@link Float32Narrowing}) rounds twice, and a double just above a
 * halfway point (1 + 2^-11 + 2^-40) would land on the halfway point and then round to even (1.0) instead of up
 * (1 + 2^-10).
 */
public final class Float64Narrowing {
    private static final long SIGN = 0x8000_0000_0000_0000L;
    private static final long EXPONENT = 0x7ff0_0000_0000_0000L;
    private static final long FRACTION = 0x000f_ffff_ffff_ffffL;
    private static final int FRACTION_BITS = 52;
    private static final int DOUBLE_BIAS = 1023;

    private Float64Narrowing() {
    }

    /**
     * @param dtype a dtype
     * @return whether {@link #narrow} rounds doubles to it: F16 and BF16 (F32 is Java's own cast, already one
     *         rounding; F64 needs none)
     */
    public static boolean supports(DType dtype) {
        return dtype == DType.F16 || dtype == DType.BF16;
    }

    /**
     * @param value any double
     * @return the F16 bits (in the low 16 bits) of the binary16 value nearest to {@code value}, ties to even
     */
    public static short toFloat16(double value) {
        return round(value, 5, 10);
    }

    /**
     * @param value any double
     * @return the BF16 bits (in the low 16 bits) of the bfloat16 value nearest to {@code value}, ties to even
     */
    public static short toBFloat16(double value) {
        return round(value, 8, 7);
    }

    /**
     * @param dtype F16 or BF16
     * @param value any double
     * @return the bits of {@code value} narrowed to {@code dtype}
     * @throws IllegalArgumentException for another dtype
     */
    public static short narrow(DType dtype, double value) {
        return switch (dtype) {
            case F16 -> toFloat16(value);
            case BF16 -> toBFloat16(value);
            default -> throw new IllegalArgumentException("doubles are narrowed to F16 or BF16, not " + dtype);
        };
    }

    /**
     * Rounds to a 16-bit format of one sign bit, {@code exponentBits} and {@code significandBits}, IEEE-style (bias
     * 2^(e-1)-1, subnormals, all-ones exponent for infinities and NaNs).
     */
    private static short round(double value, int exponentBits, int significandBits) {
        long bits = Double.doubleToRawLongBits(value);
        int sign = (int) ((bits & SIGN) >>> 48);
        long abs = bits & ~SIGN;
        int infinity = ((1 << exponentBits) - 1) << significandBits;
        if ((abs & EXPONENT) == EXPONENT) {
            if (abs == EXPONENT) {
                return (short) (sign | infinity);
            }
            int quiet = 1 << (significandBits - 1);
            int payload = (int) ((abs & FRACTION) >>> (FRACTION_BITS - significandBits));
            return (short) (sign | infinity | quiet | payload);
        }
        int field = (int) (abs >>> FRACTION_BITS);
        if (field == 0) {
            // a subnormal double is below 2^-1022, far under half of either target's smallest subnormal
            return (short) sign;
        }
        int bias = (1 << (exponentBits - 1)) - 1;
        int exponent = field - DOUBLE_BIAS;
        long significand = (abs & FRACTION) | (1L << FRACTION_BITS);
        int minNormal = 1 - bias;
        // the result counted in units of its last place: 2^(exponent - significandBits) for a normal result,
        // 2^(minNormal - significandBits) for a subnormal one
        int shift = FRACTION_BITS - significandBits + Math.max(0, minNormal - exponent);
        if (shift > FRACTION_BITS + 1) {
            // under half the smallest subnormal: the significand is below 2^53, half a unit is 2^(shift-1)
            return (short) sign;
        }
        long units = significand >>> shift;
        long remainder = significand & ((1L << shift) - 1);
        long half = 1L << (shift - 1);
        if (remainder > half || remainder == half && (units & 1) == 1) {
            units++;
        }
        if (exponent < minNormal) {
            // a subnormal result; rounding up into 2^minNormal gives the smallest normal's bits, as it should
            return (short) (sign | units);
        }
        if (units == 1L << (significandBits + 1)) {
            units >>>= 1;
            exponent++;
        }
        if (exponent > bias) {
            return (short) (sign | infinity);
        }
        int stored = (int) (units & ((1L << significandBits) - 1));
        return (short) (sign | ((exponent + bias) << significandBits) | stored);
    }
}
