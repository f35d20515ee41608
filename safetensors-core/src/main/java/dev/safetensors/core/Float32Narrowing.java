package dev.safetensors.core;

import dev.safetensors.DType;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Narrowing of float32 values to F16 (IEEE 754 binary16) and BF16 (bfloat16), the inverse of the library's widening,
 * with IEEE round-to-nearest-even: a value halfway between two representable neighbours goes to the one whose last
 * significand bit is zero. Values beyond the largest finite target (65,504 for F16) round to infinity when they are
 * at least halfway to the next power of two, as IEEE overflow does; subnormal targets are rounded the same way;
 * signs, zeros and infinities are kept; a NaN stays a NaN of the same sign, made quiet, keeping the top bits of its
 * payload (so a NaN is never narrowed into an infinity).
 *
 * <p>This is what PyTorch's {@code tensor.to(torch.float16 / torch.bfloat16)} and NumPy's {@code astype(float16)}
 * do; truncating the low bits instead (a common hand-written BF16 conversion) biases every value towards zero.
 * Widening a narrowed value and narrowing it again returns the same bits, and narrowing any F16 or BF16 value widened
 * to float32 returns its original bits (NaNs made quiet).
 */
public final class Float32Narrowing {
    private static final int F16_INFINITY = 0x7c00;
    private static final int F16_QUIET = 0x0200;
    /** Rebiases a float32 exponent field (bias 127) into binary16 position (bias 15). */
    private static final int F16_REBIAS = (127 - 15) << 23;
    /** The smallest float32 magnitude, as bits, that rounds to binary16 infinity: 65,520, halfway to 2^16. */
    private static final int F16_OVERFLOW = 0x477f_f000;
    /** The smallest normal binary16 magnitude, 2^-14, as float32 bits. */
    private static final int F16_MIN_NORMAL = 0x3880_0000;
    /** Half the smallest binary16 subnormal, 2^-25, as float32 bits: this and anything smaller rounds to zero. */
    private static final int F16_HALF_MIN_SUBNORMAL = 0x3300_0000;

    private Float32Narrowing() {
    }

    /**
     * @param dtype a dtype
     * @return whether {@link #narrow} writes it: F32 (copied), F16 and BF16
     */
    public static boolean supports(DType dtype) {
        return dtype == DType.F32 || dtype == DType.F16 || dtype == DType.BF16;
    }

    /**
     * Narrows one value to binary16.
     *
     * @param value any float
     * @return the F16 bits (in the low 16 bits) of the nearest binary16 value, ties to even
     */
    public static short toFloat16(float value) {
        int bits = Float.floatToRawIntBits(value);
        int sign = (bits >>> 16) & 0x8000;
        int abs = bits & 0x7fff_ffff;
        if (abs >= 0x7f80_0000) {
            if (abs == 0x7f80_0000) {
                return (short) (sign | F16_INFINITY);
            }
            return (short) (sign | F16_INFINITY | F16_QUIET | ((abs >>> 13) & 0x3ff));
        }
        if (abs >= F16_OVERFLOW) {
            return (short) (sign | F16_INFINITY);
        }
        if (abs >= F16_MIN_NORMAL) {
            int x = abs - F16_REBIAS;
            // adding just under half a unit, plus the kept bit, rounds half to even; a carry moves into the exponent
            x += 0x0fff + ((x >>> 13) & 1);
            return (short) (sign | (x >>> 13));
        }
        if (abs <= F16_HALF_MIN_SUBNORMAL) {
            return (short) sign;
        }
        // subnormal result: count in units of 2^-24
        int exponent = abs >>> 23;
        int significand = (abs & 0x7f_ffff) | 0x80_0000;
        int shift = 126 - exponent;
        int quotient = significand >>> shift;
        int remainder = significand & ((1 << shift) - 1);
        int half = 1 << (shift - 1);
        if (remainder > half || (remainder == half && (quotient & 1) == 1)) {
            quotient++;
        }
        return (short) (sign | quotient);
    }

    /**
     * Narrows one value to bfloat16.
     *
     * @param value any float
     * @return the BF16 bits (in the low 16 bits) of the nearest bfloat16 value, ties to even
     */
    public static short toBFloat16(float value) {
        int bits = Float.floatToRawIntBits(value);
        if ((bits & 0x7fff_ffff) > 0x7f80_0000) {
            return (short) ((bits >>> 16) | 0x0040);
        }
        bits += 0x7fff + ((bits >>> 16) & 1);
        return (short) (bits >>> 16);
    }

    /**
     * Writes {@code length} values of {@code src} from {@code offset} into {@code dst} as little-endian elements of
     * {@code dtype}, from {@code dst}'s position, which advances.
     *
     * @param dtype  F32, F16 or BF16
     * @param src    the values
     * @param offset the first value
     * @param length the number of values
     * @param dst    a buffer with at least {@code length * dtype.byteSize()} bytes remaining; its byte order is ignored
     * @throws IllegalArgumentException if {@code dtype} is not one {@linkplain #supports supported}
     * @throws IndexOutOfBoundsException if the range lies outside {@code src}
     * @throws java.nio.BufferOverflowException if {@code dst} lacks room
     */
    public static void narrow(DType dtype, float[] src, int offset, int length, ByteBuffer dst) {
        if (!supports(dtype)) {
            throw new IllegalArgumentException("cannot narrow float32 to " + dtype + ": F32, F16 or BF16 only");
        }
        java.util.Objects.checkFromIndexSize(offset, length, src.length);
        if (dst.remaining() < (long) length * dtype.byteSize()) {
            throw new java.nio.BufferOverflowException();
        }
        ByteBuffer le = dst.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int end = offset + length;
        switch (dtype) {
            case F32 -> {
                for (int i = offset; i < end; i++) {
                    le.putFloat(src[i]);
                }
            }
            case F16 -> {
                for (int i = offset; i < end; i++) {
                    le.putShort(toFloat16(src[i]));
                }
            }
            default -> {
                for (int i = offset; i < end; i++) {
                    le.putShort(toBFloat16(src[i]));
                }
            }
        }
        dst.position(le.position());
    }

    /**
     * @param dtype F32, F16 or BF16
     * @param src   the values
     * @return a new heap buffer holding {@code src} as little-endian elements of {@code dtype}, positioned at 0
     * @throws IllegalArgumentException if {@code dtype} is not one {@linkplain #supports supported}, or the bytes
     *                                  would not fit one array
     */
    public static ByteBuffer narrow(DType dtype, float[] src) {
        long bytes = (long) src.length * dtype.byteSize();
        if (bytes > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException(src.length + " values of " + dtype + " do not fit one buffer");
        }
        ByteBuffer out = ByteBuffer.allocate((int) bytes);
        narrow(dtype, src, 0, src.length, out);
        return out.flip();
    }
}
