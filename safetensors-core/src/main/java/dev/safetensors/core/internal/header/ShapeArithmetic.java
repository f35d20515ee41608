package dev.safetensors.core.internal.header;

/**
 * Rule 20's arithmetic: element count and byte length in signed 64-bit, with overflow checks, folded left to
 * right as the official crate does (so {@code [2^62, 4, 0]} overflows before the zero is reached).
 */
public final class ShapeArithmetic {
    /** Returned instead of a value that does not fit in a signed 64-bit integer. */
    static final long OVERFLOW = -1;

    private ShapeArithmetic() {
    }

    /** @return the product of non-negative {@code dims}, or {@link #OVERFLOW} */
    public static long elementCount(long[] dims) {
        long count = 1;
        for (long d : dims) {
            count = multiply(count, d);
            if (count == OVERFLOW) {
                return OVERFLOW;
            }
        }
        return count;
    }

    /** @return {@code a * b} for non-negative operands, or {@link #OVERFLOW} */
    public static long multiply(long a, long b) {
        long high = Math.multiplyHigh(a, b);
        long low = a * b;
        return high != 0 || low < 0 ? OVERFLOW : low;
    }
}
