package dev.safetensors.core;

/**
 * The range of indices taken along one dimension of a tensor, as Python's {@code start:stop:step}: indices
 * {@code start, start + step, ...} below {@code stop}. Used with {@link SafetensorsFile#slice}:
 *
 * <pre>{@code
 * // weight[0:128, :, 4:16:2]
 * TensorSlice s = file.slice("weight", Slice.range(0, 128), Slice.all(), Slice.range(4, 16, 2));
 * }</pre>
 *
 * <p>A slice is checked against the tensor's shape when it is used, not here: {@code 0 <= start <= stop <= dimension}
 * and {@code step >= 1}, or {@link dev.safetensors.TensorAccessException} {@link dev.safetensors.ErrorCode#INVALID_SLICE}.
 * Negative indices (counting from the end) and negative steps are not supported. Immutable.
 */
public final class Slice {
    private static final Slice ALL = new Slice(0, Long.MAX_VALUE, 1, true);

    private final long start;
    private final long stop;
    private final long step;
    private final boolean all;

    private Slice(long start, long stop, long step, boolean all) {
        this.start = start;
        this.stop = stop;
        this.step = step;
        this.all = all;
    }

    /** @return the whole dimension, Python's {@code :} */
    public static Slice all() {
        return ALL;
    }

    /**
     * @param start the first index
     * @param stop  the index after the last
     * @return {@code start:stop}
     */
    public static Slice range(long start, long stop) {
        return new Slice(start, stop, 1, false);
    }

    /**
     * @param start the first index
     * @param stop  the bound: indices stay below it
     * @param step  the distance between two indices taken, at least 1
     * @return {@code start:stop:step}
     */
    public static Slice range(long start, long stop, long step) {
        return new Slice(start, stop, step, false);
    }

    /**
     * @param index one index
     * @return {@code index:index+1}: the dimension is kept, with size 1
     */
    public static Slice index(long index) {
        return new Slice(index, index == Long.MAX_VALUE ? index : index + 1, 1, false);
    }

    /** @return the first index */
    public long start() {
        return start;
    }

    /**
     * @param dimension the size of the dimension this slice applies to
     * @return the bound, {@code dimension} for {@link #all()}
     */
    public long stop(long dimension) {
        return all ? dimension : stop;
    }

    /** @return the distance between two indices taken */
    public long step() {
        return step;
    }

    @Override
    public String toString() {
        return all ? ":" : step == 1 ? start + ":" + stop : start + ":" + stop + ":" + step;
    }
}
