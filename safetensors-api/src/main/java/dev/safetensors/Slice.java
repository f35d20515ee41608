package dev.safetensors;


import java.util.ArrayList;
import java.util.List;

/**
 * The range of indices taken along one dimension of a tensor, as Python's {@code start:stop:step}: indices
 * {@code start, start + step, ...} below {@code stop}. Used with {@code SafetensorsFile.slice} (core):
 *
 * <pre>{@code
 * // weight[0:128, :, 4:16:2]
 * TensorSlice s = file.slice("weight", Slice.range(0, 128), Slice.all(), Slice.range(4, 16, 2));
 * // weight[-3:, :-1], or the same from its text
 * TensorSlice t = file.slice("weight", Slice.from(-3), Slice.to(-1));
 * TensorSlice u = file.slice("weight", Slice.parseEach("-3:, :-1"));
 * }</pre>
 *
 * <p>As in Python, a negative {@code start} or {@code stop} counts from the end of the dimension ({@code -1} is the
 * last index), and an open end ({@link #from}, {@link #to}, {@link #all}) is the dimension's start or end. Unlike
 * Python, which clamps, and like the official crate's {@code get_slice}, a bound outside the dimension is refused: a
 * slice is checked against the tensor's shape when it is used, not here, and once its negative bounds are resolved it
 * must satisfy {@code 0 <= start <= stop <= dimension} and {@code step >= 1}, or
 * {@link dev.safetensors.TensorAccessException} {@link dev.safetensors.ErrorCode#INVALID_SLICE}. Negative steps are
 * not supported. Immutable.
 */
public final class Slice {
    private static final Slice ALL = new Slice(0, 0, true, 1);

    private final long start;
    private final long stop;
    private final boolean openStop;
    private final long step;

    private Slice(long start, long stop, boolean openStop, long step) {
        this.start = start;
        this.stop = stop;
        this.openStop = openStop;
        this.step = step;
    }

    /** @return the whole dimension, Python's {@code :} */
    public static Slice all() {
        return ALL;
    }

    /**
     * @param start the first index; negative counts from the end
     * @param stop  the index after the last; negative counts from the end
     * @return {@code start:stop}
     */
    public static Slice range(long start, long stop) {
        return new Slice(start, stop, false, 1);
    }

    /**
     * @param start the first index; negative counts from the end
     * @param stop  the bound: indices stay below it; negative counts from the end
     * @param step  the distance between two indices taken, at least 1
     * @return {@code start:stop:step}
     */
    public static Slice range(long start, long stop, long step) {
        return new Slice(start, stop, false, step);
    }

    /**
     * @param start the first index; negative counts from the end ({@code from(-3)} is the last three)
     * @return {@code start:}, up to the end of the dimension
     */
    public static Slice from(long start) {
        return new Slice(start, 0, true, 1);
    }

    /**
     * @param stop the index after the last; negative counts from the end ({@code to(-1)} is all but the last)
     * @return {@code :stop}, from the start of the dimension
     */
    public static Slice to(long stop) {
        return new Slice(0, stop, false, 1);
    }

    /**
     * @param index one index; negative counts from the end ({@code -1} is the last)
     * @return {@code index:index+1} ({@code -1:} for {@code -1}): the dimension is kept, with size 1
     */
    public static Slice index(long index) {
        if (index == -1) {
            return from(-1);
        }
        return new Slice(index, index == Long.MAX_VALUE ? index : index + 1, false, 1);
    }

    /**
     * Reads one slice as Python writes it inside brackets: {@code start:stop:step} where each part may be left out
     * ({@code :}, {@code -3:}, {@code :-1}, {@code ::2}), or a single index ({@code 5}, {@code -1}), which keeps the
     * dimension with size 1. Spaces around the numbers are allowed.
     *
     * @param text the slice, such as {@code -3:}
     * @return the slice
     * @throws TensorAccessException {@link ErrorCode#INVALID_SLICE} if {@code text} is not one
     */
    public static Slice parse(String text) throws TensorAccessException {
        String[] parts = text.split(":", -1);
        if (parts.length > 3) {
            throw unparsable(text, "more than two ':'");
        }
        if (parts.length == 1) {
            return index(number(text, parts[0], false));
        }
        long step = parts.length == 3 && !parts[2].isBlank() ? number(text, parts[2], false) : 1;
        long start = parts[0].isBlank() ? 0 : number(text, parts[0], true);
        return parts[1].isBlank() ? new Slice(start, 0, true, step) : new Slice(start, number(text, parts[1], true),
                false, step);
    }

    /**
     * Reads the slices of every dimension as Python writes them inside brackets, separated by commas:
     * {@code "0:128, :, 4:16:2"} or {@code "-3:, :-1"}. Dimensions left out at the end are taken whole.
     *
     * @param text the slices
     * @return one slice per dimension written
     * @throws TensorAccessException {@link ErrorCode#INVALID_SLICE} if a part is not a slice
     */
    public static Slice[] parseEach(String text) throws TensorAccessException {
        List<Slice> slices = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            slices.add(parse(part));
        }
        return slices.toArray(new Slice[0]);
    }

    private static long number(String text, String part, boolean empty) throws TensorAccessException {
        String digits = part.strip();
        if (digits.isEmpty() && !empty) {
            throw unparsable(text, "an index is missing");
        }
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw unparsable(text, "'" + digits + "' is not an integer");
        }
    }

    private static TensorAccessException unparsable(String text, String why) {
        String shown = text.length() > 80 ? text.substring(0, 80) + "..." : text;
        return new TensorAccessException(ErrorCode.INVALID_SLICE, "<slice>", null, "'" + shown + "' is not a slice"
                + " (start:stop:step, each part optional, or one index): " + why);
    }

    /** @return the first index as written: negative counts from the end */
    public long start() {
        return start;
    }

    /**
     * @param dimension the size of the dimension this slice applies to
     * @return the first index, a negative one resolved against {@code dimension} (it may still lie outside it)
     */
    public long start(long dimension) {
        return start < 0 ? dimension + start : start;
    }

    /**
     * @param dimension the size of the dimension this slice applies to
     * @return the bound, {@code dimension} for an open end, a negative one resolved against {@code dimension} (it may
     *         still lie outside it)
     */
    public long stop(long dimension) {
        return openStop ? dimension : stop < 0 ? dimension + stop : stop;
    }

    /** @return the distance between two indices taken */
    public long step() {
        return step;
    }

    /** @return the slice as Python writes it, which {@link #parse} reads back */
    @Override
    public String toString() {
        String bounds = (start == 0 ? "" : Long.toString(start)) + ":" + (openStop ? "" : Long.toString(stop));
        return step == 1 ? bounds : bounds + ":" + step;
    }
}
