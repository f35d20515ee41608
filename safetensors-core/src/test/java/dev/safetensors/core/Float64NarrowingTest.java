package dev.safetensors.core;

import dev.safetensors.DType;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link Float64Narrowing} against a reference that shares nothing with it: each target pattern's value built from
 * its sign, exponent and significand fields, the two patterns around the input found by comparison, the nearer kept
 * and a tie sent to the even pattern. Patterns are consecutive across the largest finite value and infinity, whose
 * "value" is the next power of two, which is how IEEE defines overflow. Every pattern's value, the exact midpoints to
 * each neighbour and the doubles just either side of them are tried, for both signs.
 *
 * <p>The reference computes in doubles, and every step is exact: each F16 and BF16 value (11 and 8 significant bits,
 * exponents -24 to 16 and -133 to 128) is a double; a midpoint or a quarter point between two neighbours needs two
 * more bits; and of the two distances compared, {@code x - lo} and {@code hi - x} with {@code lo <= x <= hi}
 * neighbours, each is exact by Sterbenz's lemma whenever its operands are within a factor of two of each other,
 * which neighbours are except next to zero, where {@code x - 0} is exact and {@code hi - x} can only round towards
 * {@code hi / 2}, which keeps the comparison's answer (rounding is monotonic). Doubles rather than
 * {@code BigDecimal}: the same answers at a fifth of the CPU.
 */
class Float64NarrowingTest {
    private record Format(String name, int exponentBits, int significandBits, double[] values) {
        Format(String name, int exponentBits, int significandBits) {
            this(name, exponentBits, significandBits, new double[(((1 << exponentBits) - 1) << significandBits) + 1]);
            for (int p = 0; p < values.length; p++) {
                values[p] = exact(p);
            }
        }

        int infinity() {
            return ((1 << exponentBits) - 1) << significandBits;
        }

        double value(int pattern) {
            return values[pattern];
        }

        private double exact(int pattern) {
            int bias = (1 << (exponentBits - 1)) - 1;
            int field = pattern >>> significandBits;
            long fraction = pattern & ((1L << significandBits) - 1);
            long significand = field == 0 ? fraction : fraction | 1L << significandBits;
            int scale = (field == 0 ? 1 : field) - bias - significandBits;
            // a significand of at most 11 bits times a power of two these formats reach: exact
            return Math.scalb((double) significand, scale);
        }

        /** The reference rounding of a finite non-negative double. */
        int reference(double x) {
            int lo = 0;
            int hi = infinity();
            if (x >= value(hi)) {
                return hi;
            }
            while (hi - lo > 1) { // value(lo) <= x < value(hi)
                int mid = (lo + hi) >>> 1;
                if (value(mid) <= x) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            int c = Double.compare(x - value(lo), value(hi) - x);
            return c < 0 ? lo : c > 0 ? hi : (lo & 1) == 0 ? lo : hi;
        }

        short narrow(double d) {
            return significandBits == 10 ? Float64Narrowing.toFloat16(d) : Float64Narrowing.toBFloat16(d);
        }
    }

    private static final Format F16 = new Format("F16", 5, 10);
    private static final Format BF16 = new Format("BF16", 8, 7);

    private static void check(Format f, double d) {
        int expected = f.reference(Math.abs(d)) | (Double.doubleToRawLongBits(d) < 0 ? 0x8000 : 0);
        int got = f.narrow(d) & 0xffff;
        if (expected != got) {
            assertEquals(Integer.toHexString(expected), Integer.toHexString(got), f.name() + " of "
                    + new BigDecimal(d).toPlainString() + " (" + Long.toHexString(Double.doubleToRawLongBits(d)) + ")");
        }
    }

    private static void everyEdge(Format f) {
        for (int p = 0; p < f.infinity(); p++) {
            double at = f.value(p);
            double mid = (f.value(p) + f.value(p + 1)) / 2;
            double quarter = (f.value(p) * 3 + f.value(p + 1)) / 4;
            for (double d : new double[]{at, Math.nextUp(at), Math.nextDown(at), mid, Math.nextUp(mid),
                    Math.nextDown(mid), mid + Math.ulp(mid) * 0x1p12, mid - Math.ulp(mid) * 0x1p12, quarter}) {
                if (d >= 0) {
                    check(f, d);
                    check(f, -d);
                }
            }
        }
    }

    @Test
    void everyF16NeighbourMidpointAndTheDoublesAroundThemRoundOnceToNearestEven() {
        everyEdge(F16);
    }

    @Test
    void everyBF16NeighbourMidpointAndTheDoublesAroundThemRoundOnceToNearestEven() {
        everyEdge(BF16);
    }

    @Test
    void randomDoublesOverTheWholeRangeMatchTheReference() {
        SplittableRandom r = new SplittableRandom(64);
        for (int i = 0; i < 50_000; i++) {
            // exponents from far below the smallest subnormal to far above the largest finite value
            double d = Math.scalb(1.0 + r.nextDouble(), r.nextInt(-160, 140));
            check(F16, d);
            check(BF16, d);
            check(F16, Double.longBitsToDouble(r.nextLong() & 0x7fef_ffff_ffff_ffffL));
        }
    }

    @Test
    void aDoubleJustAboveAHalfwayPointRoundsUpWhereGoingThroughFloat32WouldRoundToEven() {
        double d = 1 + 0x1p-11 + 0x1p-40;
        assertEquals(0x3c01, Float64Narrowing.toFloat16(d));
        assertEquals(0x3c00, Float32Narrowing.toFloat16((float) d), "the double rounding this class avoids");
        assertEquals(0x3f81, Float64Narrowing.toBFloat16(1 + 0x1p-8 + 0x1p-40) & 0xffff);
    }

    @Test
    void specialValuesKeepTheirSignAndNaNsStayNaNsMadeQuiet() {
        assertEquals(0x7c00, Float64Narrowing.toFloat16(Double.POSITIVE_INFINITY));
        assertEquals(0xfc00, Float64Narrowing.toFloat16(Double.NEGATIVE_INFINITY) & 0xffff);
        assertEquals(0x8000, Float64Narrowing.toFloat16(-0.0) & 0xffff);
        assertEquals(0x8000, Float64Narrowing.toFloat16(-Double.MIN_VALUE) & 0xffff);
        assertEquals(0x7c00, Float64Narrowing.toFloat16(65520.0));
        assertEquals(0x7bff, Float64Narrowing.toFloat16(Math.nextDown(65520.0)));
        assertEquals(0x7f80, Float64Narrowing.toBFloat16(Double.MAX_VALUE));
        // a signalling NaN whose payload sits below the target's bits: quiet, never an infinity
        assertEquals(0x7e00, Float64Narrowing.toFloat16(Double.longBitsToDouble(0x7ff0_0000_0000_0001L)));
        assertEquals(0xffc0, Float64Narrowing.toBFloat16(Double.longBitsToDouble(0xfff0_0000_0000_0001L)) & 0xffff);
        assertEquals(0x7e01, Float64Narrowing.toFloat16(Double.longBitsToDouble(0x7ff0_0400_0000_0000L)));
    }

    @Test
    void onlyF16AndBF16AreNarrowedFromDoubles() {
        assertEquals(0x3c00, Float64Narrowing.narrow(DType.F16, 1.0));
        assertEquals(0x3f80, Float64Narrowing.narrow(DType.BF16, 1.0));
        assertThrows(IllegalArgumentException.class, () -> Float64Narrowing.narrow(DType.F32, 1.0));
    }
}
