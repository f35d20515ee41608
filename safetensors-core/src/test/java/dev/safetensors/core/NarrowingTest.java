package dev.safetensors.core;

import dev.safetensors.DType;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link Float32Narrowing} against an independent reference: the nearest representable value found by exact
 * comparison among the two neighbours of the input (values of {@link ReferenceFloats}, which shares nothing with the
 * library), ties to the even significand, and overflow defined as IEEE does (round as if the exponent range were
 * unbounded, then to infinity past the largest finite value). The comparisons are made in doubles, exactly: a float
 * and its neighbours are doubles, and each distance compared is exact by Sterbenz's lemma (neighbours within a factor
 * of two), except next to zero, where {@code x - 0} is exact and the other distance can only round towards half the
 * gap, which keeps the comparison's answer ({@link Float64NarrowingTest} says it at length).
 */
class NarrowingTest {
    /** Every finite non-negative binary16 value in increasing order, as float; index = bits. */
    private static final float[] F16_VALUES = new float[0x7c00];

    static {
        for (int h = 0; h < 0x7c00; h++) {
            F16_VALUES[h] = Float.intBitsToFloat(ReferenceFloats.f16(h));
        }
    }

    /** The reference F16 rounding of a finite float, from exact comparisons. */
    private static int referenceF16(float f) {
        int sign = Float.floatToRawIntBits(f) < 0 ? 0x8000 : 0;
        float a = Math.abs(f);
        // 2^16 is the value the next binade would start at: the overflow threshold is halfway from 65504 to it
        double exact = a;
        int lo = 0;
        int hi = 0x7bff;
        while (lo < hi) { // the largest h with value(h) <= a
            int mid = (lo + hi + 1) >>> 1;
            if (F16_VALUES[mid] <= a) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        double below = F16_VALUES[lo];
        double above = lo == 0x7bff ? 65536.0 : F16_VALUES[lo + 1];
        int cmp = Double.compare(exact - below, above - exact);
        int chosen = cmp < 0 || (cmp == 0 && (lo & 1) == 0) || exact == below ? lo : lo + 1;
        return sign | chosen; // lo + 1 == 0x7c00 is infinity
    }

    /** The reference BF16 rounding of a finite float: neighbours are the float with its low 16 bits cleared, and next. */
    private static int referenceBf16(float f) {
        int bits = Float.floatToRawIntBits(f);
        int sign = bits & 0x8000_0000;
        int abs = bits & 0x7fff_ffff;
        int low = abs & 0xffff_0000;
        double exact = Math.abs(f);
        double below = Float.intBitsToFloat(low);
        // the next value up, or 2^128 where that is infinity
        double above = low + 0x10000 == 0x7f80_0000 ? 0x1p128 : Float.intBitsToFloat(low + 0x10000);
        int cmp = Double.compare(exact - below, above - exact);
        boolean down = cmp < 0 || (cmp == 0 && ((low >>> 16) & 1) == 0);
        return (sign | (down ? low : low + 0x10000)) >>> 16;
    }

    @Test
    void everyF16ValueWidenedNarrowsBackToItsBits() {
        for (int bits = 0; bits < 0x10000; bits++) {
            int h = bits;
            float widened = Float32Widening.f16(h);
            int back = Float32Narrowing.toFloat16(widened) & 0xffff;
            boolean nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0;
            assertEquals(nan ? h | 0x0200 : h, back, () -> "F16 0x" + Integer.toHexString(h));
        }
    }

    @Test
    void everyBf16ValueWidenedNarrowsBackToItsBits() {
        for (int bits = 0; bits < 0x10000; bits++) {
            int h = bits;
            float widened = Float.intBitsToFloat(ReferenceFloats.bf16(h));
            int back = Float32Narrowing.toBFloat16(widened) & 0xffff;
            boolean nan = (h & 0x7f80) == 0x7f80 && (h & 0x7f) != 0;
            assertEquals(nan ? h | 0x0040 : h, back, () -> "BF16 0x" + Integer.toHexString(h));
        }
    }

    @Test
    void tiesAndTheirNeighboursRoundLikeTheReferenceForF16() {
        for (int h = 0; h < 0x7bff; h++) {
            // the midpoint between h and h + 1 is exact in float32 (binary16 has 11 significant bits, float32 24)
            float mid = (F16_VALUES[h] + F16_VALUES[h + 1]) / 2;
            for (float f : new float[] {mid, Math.nextUp(mid), Math.nextDown(mid), -mid}) {
                assertEquals(referenceF16(f), Float32Narrowing.toFloat16(f) & 0xffff, () -> "float " + f);
            }
        }
        float overflowTie = 65520f;
        assertEquals(0x7c00, Float32Narrowing.toFloat16(overflowTie) & 0xffff);
        assertEquals(0x7bff, Float32Narrowing.toFloat16(Math.nextDown(overflowTie)) & 0xffff);
        assertEquals(0xfc00, Float32Narrowing.toFloat16(-1e30f) & 0xffff);
        assertEquals(0x0000, Float32Narrowing.toFloat16(0x1p-25f) & 0xffff, "half the smallest subnormal, tie to 0");
        assertEquals(0x0001, Float32Narrowing.toFloat16(Math.nextUp(0x1p-25f)) & 0xffff);
        assertEquals(0x8000, Float32Narrowing.toFloat16(-0f) & 0xffff);
    }

    @Test
    void tiesAndTheirNeighboursRoundLikeTheReferenceForBf16() {
        SplittableRandom random = new SplittableRandom(16);
        for (int i = 0; i < 200_000; i++) {
            int upper = random.nextInt(0xff00) & 0x7fff; // finite magnitudes below the last binade's top
            int tie = (upper << 16) | 0x8000;
            for (int bits : new int[] {tie, tie + 1, tie - 1, tie | 0x8000_0000}) {
                float f = Float.intBitsToFloat(bits);
                if (Float.isFinite(f)) {
                    assertEquals(referenceBf16(f), Float32Narrowing.toBFloat16(f) & 0xffff, () -> "bits " + bits);
                }
            }
        }
        assertEquals(0x7f80, Float32Narrowing.toBFloat16(Float.MAX_VALUE) & 0xffff, "rounds up into infinity");
        assertEquals(0x7f80, Float32Narrowing.toBFloat16(Float.POSITIVE_INFINITY) & 0xffff);
    }

    @Test
    void randomFloatsMatchTheReference() {
        SplittableRandom random = new SplittableRandom(27);
        for (int i = 0; i < 300_000; i++) {
            float f = Float.intBitsToFloat(random.nextInt());
            if (!Float.isFinite(f)) {
                continue;
            }
            assertEquals(referenceBf16(f), Float32Narrowing.toBFloat16(f) & 0xffff, () -> "BF16 of " + f);
            // the F16 reference searches finite binary16 values: compare where the float is in or near its range
            if (Math.abs(f) < 1e6f) {
                assertEquals(referenceF16(f), Float32Narrowing.toFloat16(f) & 0xffff, () -> "F16 of " + f);
            } else {
                assertEquals(Float.floatToRawIntBits(f) < 0 ? 0xfc00 : 0x7c00, Float32Narrowing.toFloat16(f) & 0xffff);
            }
        }
    }

    @Test
    void nansStayNansOfTheSameSignMadeQuiet() {
        float signallingNegative = Float.intBitsToFloat(0xff80_0001);
        assertEquals(0xfe00, Float32Narrowing.toFloat16(signallingNegative) & 0xffff);
        assertEquals(0xffc0, Float32Narrowing.toBFloat16(signallingNegative) & 0xffff);
        float payload = Float.intBitsToFloat(0x7fa0_2000);
        assertEquals(0x7f01, Float32Narrowing.toFloat16(payload) & 0xffff);
        assertEquals(0x7fe0, Float32Narrowing.toBFloat16(payload) & 0xffff);
    }

    @Test
    void arraysNarrowToLittleEndianElements() {
        float[] values = {1f, -2.5f, 65504f, 1e-8f};
        ByteBuffer f16 = Float32Narrowing.narrow(DType.F16, values).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(8, f16.remaining());
        assertEquals((short) 0x3c00, f16.getShort(0));
        assertEquals((short) 0xc100, f16.getShort(2));
        assertEquals((short) 0x7bff, f16.getShort(4));
        ByteBuffer bf16 = Float32Narrowing.narrow(DType.BF16, values).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals((short) 0x3f80, bf16.getShort(0));
        ByteBuffer f32 = Float32Narrowing.narrow(DType.F32, values).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(-2.5f, f32.getFloat(4));

        ByteBuffer partial = ByteBuffer.allocate(6);
        partial.position(2);
        Float32Narrowing.narrow(DType.BF16, values, 1, 2, partial);
        assertEquals(6, partial.position());
        assertThrows(IllegalArgumentException.class, () -> Float32Narrowing.narrow(DType.I32, values));
        assertThrows(java.nio.BufferOverflowException.class,
                () -> Float32Narrowing.narrow(DType.F16, values, 0, 4, ByteBuffer.allocate(7)));
    }
}
