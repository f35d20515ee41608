package dev.safetensors.core;

import dev.safetensors.DType;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Exact widening of little-endian elements to float32 (rule 23): every finite input, subnormals and -0.0 included,
 * becomes the float of the same value, infinities stay infinities, and NaNs keep their sign and (for F16, BF16, F32
 * and F8_E5M2) their payload, aligned to the top of the float's significand.
 *
 * <p>Widened dtypes: F32, F16, BF16, and the 8-bit floats F8_E4M3 (OCP E4M3FN), F8_E5M2 (OCP E5M2), F8_E8M0 (OCP MX
 * E8M0 scale), F8_E4M3FNUZ and F8_E5M2FNUZ. F8_E4M3 has no infinities and one NaN pattern per sign, which becomes the
 * canonical quiet NaN with that sign. F8_E8M0 is 2^(e - 127) for e from 0 to 254 (2^-127 is a float32 subnormal) and
 * NaN for 0xFF. The FNUZ formats (bias 8 and 16, no infinities, no negative zero) have one NaN, 0x80, which becomes
 * the positive canonical quiet NaN, as PyTorch and ml_dtypes read it.
 *
 * <p>The loops over heap blocks read the backing array through a little-endian view; direct blocks (a memory mapping,
 * a caller's direct buffer) are read in place through the buffer's own accessors. BF16 and F8_E4M3 are a few integer
 * operations each; binary16 (F16, and F8_E5M2, its upper byte) goes through a table of all 65,536 values, built once
 * from {@link #f16} on first use: 256 KiB that stay in cache, and about three times faster than the branches of
 * {@link #f16} (measured 2.4 against 0.85 G elements/s on one core of the development machine). The other 8-bit
 * formats use a 256-entry table each.
 *
 * <p>Public for the modules above core that widen memory of their own (the {@code MemorySegment} views of
 * {@code safetensors-memory}); {@link SafetensorsFile#readFloat32(String)} and {@link TensorSlice#readFloat32()} are
 * the usual way in. Stateless and thread-safe.
 */
public final class Float32Widening {
    private static final VarHandle SHORT_LE = MethodHandles.byteArrayViewVarHandle(short[].class,
            ByteOrder.LITTLE_ENDIAN);

    /** Adds to a binary16 exponent field, shifted into float32 position, to rebias it from 15 to 127. */
    private static final int F16_REBIAS = (127 - 15) << 23;
    /** Adds to an E4M3 exponent field, shifted into float32 position, to rebias it from 7 to 127. */
    private static final int E4M3_REBIAS = (127 - 7) << 23;
    private static final int QUIET_NAN = 0x7fc0_0000;

    private Float32Widening() {
    }

    /**
     * @param dtype a dtype
     * @return whether {@code dtype} can be widened to float32
     */
    public static boolean supports(DType dtype) {
        return switch (dtype) {
            case F32, F16, BF16, F8_E4M3, F8_E5M2, F8_E8M0, F8_E4M3FNUZ, F8_E5M2FNUZ -> true;
            default -> false;
        };
    }

    /** @return the widened dtypes, for messages */
    public static String supportedNames() {
        return "F32, F16, BF16, F8_E4M3, F8_E5M2, F8_E8M0, F8_E4M3FNUZ and F8_E5M2FNUZ";
    }

    /**
     * Widens the elements between {@code src}'s position and limit into {@code dst} from {@code offset}, leaving
     * {@code src} unchanged, exactly as {@link SafetensorsFile#readFloat32(String)} does (NaN payloads, infinities,
     * subnormals and -0.0 kept), so a tensor can be widened chunk by chunk.
     *
     * @param dtype  a dtype that {@link #supports} widening
     * @param src    a buffer (heap or direct, read-only or not; its byte order is ignored) holding a whole number of
     *               little-endian elements of {@code dtype}
     * @param dst    where the floats go
     * @param offset the index in {@code dst} of the first float
     * @return the number of floats written
     * @throws IllegalArgumentException  if {@code dtype} is not widened
     * @throws IndexOutOfBoundsException if {@code dst} has no room for them from {@code offset}
     */
    public static int widen(DType dtype, ByteBuffer src, float[] dst, int offset) {
        return widen(dtype, src, src.position(), src.remaining(), dst, offset);
    }

    /**
     * @param dtype a dtype that {@link #supports}
     * @param bytes a whole number of little-endian elements of {@code dtype}
     * @return the widened values, a new array
     * @throws IllegalArgumentException if the dtype is not {@linkplain #supports supported}
     */
    public static float[] widen(DType dtype, byte[] bytes) {
        float[] out = new float[bytes.length / dtype.byteSize()];
        widen(dtype, ByteBuffer.wrap(bytes), out, 0);
        return out;
    }

    /**
     * Widens the {@code bytes} bytes of {@code src} from absolute index {@code index} into {@code dst} from
     * {@code offset}, leaving {@code src} unchanged.
     *
     * @param src heap or direct, read-only or not; its byte order is ignored (elements are little-endian)
     * @return the number of floats written
     */
    static int widen(DType dtype, ByteBuffer src, int index, int bytes, float[] dst, int offset) {
        if (src.hasArray()) {
            byte[] a = src.array();
            int from = src.arrayOffset() + index;
            // one small method per dtype: each loop is compiled and unrolled on its own
            return switch (dtype) {
                case F32 -> f32s(src, index, bytes, dst, offset);
                case BF16 -> bf16s(a, from, bytes >> 1, dst, offset);
                case F16 -> f16s(a, from, bytes >> 1, dst, offset);
                case F8_E5M2 -> e5m2s(a, from, bytes, dst, offset);
                case F8_E4M3 -> e4m3s(a, from, bytes, dst, offset);
                case F8_E8M0, F8_E4M3FNUZ, F8_E5M2FNUZ -> bytes(table(dtype), a, from, bytes, dst, offset);
                default -> throw new IllegalArgumentException(dtype + " is not float-readable");
            };
        }
        ByteBuffer le = src.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        return switch (dtype) {
            case F32 -> f32s(le, index, bytes, dst, offset);
            case BF16 -> bf16s(le, index, bytes >> 1, dst, offset);
            case F16 -> f16s(le, index, bytes >> 1, dst, offset);
            case F8_E5M2 -> e5m2s(le, index, bytes, dst, offset);
            case F8_E4M3, F8_E8M0, F8_E4M3FNUZ, F8_E5M2FNUZ -> bytes(table(dtype), le, index, bytes, dst, offset);
            default -> throw new IllegalArgumentException(dtype + " is not float-readable");
        };
    }

    private static float[] table(DType dtype) {
        return switch (dtype) {
            case F8_E4M3 -> ByteTables.E4M3;
            case F8_E8M0 -> ByteTables.E8M0;
            case F8_E4M3FNUZ -> ByteTables.E4M3FNUZ;
            case F8_E5M2FNUZ -> ByteTables.E5M2FNUZ;
            default -> throw new IllegalArgumentException(dtype + " has no byte table");
        };
    }

    private static int f32s(ByteBuffer src, int index, int bytes, float[] dst, int offset) {
        int n = bytes >> 2;
        src.slice(index, bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(dst, offset, n);
        return n;
    }

    private static int bf16s(byte[] a, int from, int n, float[] dst, int offset) {
        for (int i = 0; i < n; i++) {
            dst[offset + i] = Float.intBitsToFloat((short) SHORT_LE.get(a, from + 2 * i) << 16);
        }
        return n;
    }

    private static int bf16s(ByteBuffer le, int from, int n, float[] dst, int offset) {
        for (int i = 0; i < n; i++) {
            dst[offset + i] = Float.intBitsToFloat(le.getShort(from + 2 * i) << 16);
        }
        return n;
    }

    private static int f16s(byte[] a, int from, int n, float[] dst, int offset) {
        float[] table = Binary16Table.VALUES;
        for (int i = 0; i < n; i++) {
            dst[offset + i] = table[(short) SHORT_LE.get(a, from + 2 * i) & 0xffff];
        }
        return n;
    }

    private static int f16s(ByteBuffer le, int from, int n, float[] dst, int offset) {
        float[] table = Binary16Table.VALUES;
        for (int i = 0; i < n; i++) {
            dst[offset + i] = table[le.getShort(from + 2 * i) & 0xffff];
        }
        return n;
    }

    private static int e5m2s(byte[] a, int from, int n, float[] dst, int offset) {
        // E5M2 is the upper byte of a binary16 with the same exponent bias
        float[] table = Binary16Table.VALUES;
        for (int i = 0; i < n; i++) {
            dst[offset + i] = table[(a[from + i] & 0xff) << 8];
        }
        return n;
    }

    private static int e5m2s(ByteBuffer le, int from, int n, float[] dst, int offset) {
        float[] table = Binary16Table.VALUES;
        for (int i = 0; i < n; i++) {
            dst[offset + i] = table[(le.get(from + i) & 0xff) << 8];
        }
        return n;
    }

    private static int e4m3s(byte[] a, int from, int n, float[] dst, int offset) {
        for (int i = 0; i < n; i++) {
            dst[offset + i] = e4m3(a[from + i]);
        }
        return n;
    }

    private static int bytes(float[] table, byte[] a, int from, int n, float[] dst, int offset) {
        for (int i = 0; i < n; i++) {
            dst[offset + i] = table[a[from + i] & 0xff];
        }
        return n;
    }

    private static int bytes(float[] table, ByteBuffer le, int from, int n, float[] dst, int offset) {
        for (int i = 0; i < n; i++) {
            dst[offset + i] = table[le.get(from + i) & 0xff];
        }
        return n;
    }

    /** Every binary16 widened by {@link #f16}, built when first needed. */
    private static final class Binary16Table {
        static final float[] VALUES = new float[1 << 16];

        static {
            for (int h = 0; h < VALUES.length; h++) {
                VALUES[h] = f16(h);
            }
        }
    }

    /** Every byte of the 8-bit formats that are not a binary16's upper byte, widened once when first needed. */
    private static final class ByteTables {
        static final float[] E4M3 = new float[256];
        static final float[] E8M0 = new float[256];
        static final float[] E4M3FNUZ = new float[256];
        static final float[] E5M2FNUZ = new float[256];

        static {
            for (int b = 0; b < 256; b++) {
                E4M3[b] = e4m3(b);
                E8M0[b] = e8m0(b);
                E4M3FNUZ[b] = fnuz(b, 3, 8);
                E5M2FNUZ[b] = fnuz(b, 2, 16);
            }
        }
    }

    /** @return the float of the binary16 in the low 16 bits of {@code h} (higher bits are ignored) */
    static float f16(int h) {
        int sign = (h & 0x8000) << 16;
        int magnitude = h & 0x7fff;
        int shifted = magnitude << 13;
        int bits;
        if (magnitude >= 0x7c00) {
            bits = shifted | 0x7f80_0000;              // infinity or NaN: all-ones exponent, payload kept
        } else if (magnitude >= 0x0400) {
            bits = shifted + F16_REBIAS;               // normal
        } else {
            // zero or subnormal, m * 2^-24: the int converts exactly and the scaling by a power of two is exact
            bits = Float.floatToRawIntBits(magnitude * 0x1p-24f);
        }
        return Float.intBitsToFloat(sign | bits);
    }

    /** @return the float of the OCP E4M3FN byte in the low 8 bits of {@code b} */
    static float e4m3(int b) {
        int sign = (b & 0x80) << 24;
        int magnitude = b & 0x7f;
        int bits;
        if (magnitude == 0x7f) {
            bits = QUIET_NAN;                          // S.1111.111, the only NaN; E4M3FN has no infinity
        } else if (magnitude >= 0x08) {
            bits = (magnitude << 20) + E4M3_REBIAS;    // normal, 1111.000 to 1111.110 included (256 to 448)
        } else {
            bits = Float.floatToRawIntBits(magnitude * 0x1p-9f); // zero or subnormal, m * 2^-9
        }
        return Float.intBitsToFloat(sign | bits);
    }

    /** @return the float of the OCP MX E8M0 byte in the low 8 bits of {@code b}: 2^(b - 127), NaN for 0xFF */
    static float e8m0(int b) {
        int e = b & 0xff;
        if (e == 0xff) {
            return Float.intBitsToFloat(QUIET_NAN);
        }
        // e = 0 is 2^-127, the float32 subnormal with only the top significand bit set; above, the same exponent field
        return Float.intBitsToFloat(e == 0 ? 0x0040_0000 : e << 23);
    }

    /**
     * @param mantissaBits 3 for E4M3FNUZ, 2 for E5M2FNUZ
     * @param bias         8 for E4M3FNUZ, 16 for E5M2FNUZ
     * @return the float of an FNUZ byte: 0x80 is the only NaN, there is neither infinity nor -0.0
     */
    static float fnuz(int b, int mantissaBits, int bias) {
        b &= 0xff;
        if (b == 0x80) {
            return Float.intBitsToFloat(QUIET_NAN);
        }
        int sign = (b & 0x80) << 24;
        int exponent = (b & 0x7f) >> mantissaBits;
        int mantissa = b & ((1 << mantissaBits) - 1);
        int bits;
        if (exponent == 0) {
            // subnormal, m * 2^(1 - bias - mantissaBits): exact, a small int scaled by a power of two
            bits = Float.floatToRawIntBits(Math.scalb((float) mantissa, 1 - bias - mantissaBits));
        } else {
            bits = (exponent - bias + 127) << 23 | mantissa << (23 - mantissaBits);
        }
        return Float.intBitsToFloat(sign | bits);
    }
}
