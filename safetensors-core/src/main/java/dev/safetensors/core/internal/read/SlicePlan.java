package dev.safetensors.core.internal.read;

import dev.safetensors.ErrorCode;
import dev.safetensors.TensorAccessException;
import dev.safetensors.TensorInfo;

import java.util.Arrays;
import dev.safetensors.Slice;

/**
 * The byte runs a slice of a tensor needs. Trailing dimensions taken whole fold into the run, and so does the
 * innermost dimension that is not, when its step is 1: a row range of a matrix is one run, a column range is one run
 * per row, and a step along the last dimension makes every element a run of its own. Runs come in file order, which
 * is also the row-major order of the result.
 */
public final class SlicePlan {
    private final long[] shape;
    private final long elementCount;
    private final int elementSize;
    private final long first;
    private final long[] counts;
    private final long[] strides;
    private final long runLength;
    private final long runCount;

    private SlicePlan(long[] shape, long elementCount, int elementSize, long first, long[] counts, long[] strides,
                      long runLength, long runCount) {
        this.shape = shape;
        this.elementCount = elementCount;
        this.elementSize = elementSize;
        this.first = first;
        this.counts = counts;
        this.strides = strides;
        this.runLength = runLength;
        this.runCount = runCount;
    }

    /** @return the plan of a whole tensor: one run (none if it is empty) */
    public static SlicePlan whole(TensorInfo t) {
        return new SlicePlan(t.shape(), t.elementCount(), t.dtype().byteSize(), 0, new long[0], new long[0],
                t.byteLength(), t.byteLength() == 0 ? 0 : 1);
    }

    /**
     * @param slices one per leading dimension; dimensions without one are taken whole
     * @throws TensorAccessException {@link ErrorCode#INVALID_SLICE} if the slices do not fit the tensor
     */
    public static SlicePlan of(String source, TensorInfo t, Slice[] slices) throws TensorAccessException {
        int rank = t.rank();
        int e = t.dtype().byteSize();
        if (e == 0) {
            throw invalid(source, t, "elements of " + t.dtype() + " are packed below a byte and cannot be sliced");
        }
        if (slices.length > rank) {
            throw invalid(source, t, slices.length + " slices for a tensor of rank " + rank);
        }
        long[] dims = t.shape();
        long[] starts = new long[rank];
        long[] steps = new long[rank];
        long[] sizes = new long[rank];
        for (int i = 0; i < rank; i++) {
            Slice s = i < slices.length ? slices[i] : Slice.all();
            if (s == null) {
                throw invalid(source, t, "slice " + i + " is null");
            }
            long start = s.start(dims[i]);
            long stop = s.stop(dims[i]);
            if (start < 0 || s.step() < 1 || stop < start || stop > dims[i]) {
                throw invalid(source, t, "slice " + s + " does not fit dimension " + i + " of size " + dims[i]
                        + " (0 <= start <= stop <= size once negative indices count from the end, step >= 1)");
            }
            starts[i] = start;
            steps[i] = s.step();
            sizes[i] = stop == start ? 0 : (stop - start - 1) / s.step() + 1;
        }
        long elements = 1;
        for (long n : sizes) {
            elements *= n; // at most the tensor's element count: no overflow
        }
        // byte strides of each dimension, innermost last; bounded by the tensor's byte length
        long[] stride = new long[rank];
        long acc = e;
        for (int i = rank - 1; i >= 0; i--) {
            stride[i] = acc;
            acc *= dims[i] == 0 ? 1 : dims[i];
        }
        if (elements == 0) {
            return new SlicePlan(sizes, 0, e, 0, new long[0], new long[0], 0, 0);
        }
        int k = rank - 1;
        while (k >= 0 && starts[k] == 0 && steps[k] == 1 && sizes[k] == dims[k]) {
            k--;
        }
        long firstOffset = 0;
        for (int i = 0; i < rank; i++) {
            firstOffset += starts[i] * stride[i];
        }
        if (k < 0) {
            return new SlicePlan(sizes, elements, e, 0, new long[0], new long[0], t.byteLength(), 1);
        }
        // the innermost dimension not taken whole: with step 1 its positions are one run, otherwise one run each
        int iterated = steps[k] == 1 ? k : k + 1;
        long run = steps[k] == 1 ? sizes[k] * stride[k] : stride[k];
        long[] counts = Arrays.copyOf(sizes, iterated);
        long[] byteSteps = new long[iterated];
        long runs = 1;
        for (int i = 0; i < iterated; i++) {
            byteSteps[i] = steps[i] * stride[i];
            runs *= counts[i];
        }
        return new SlicePlan(sizes, elements, e, firstOffset, counts, byteSteps, run, runs);
    }

    private static TensorAccessException invalid(String source, TensorInfo t, String detail) {
        return new TensorAccessException(ErrorCode.INVALID_SLICE, source, t.name(), detail);
    }

    /** @return the result's shape, rank unchanged */
    public long[] shape() {
        return shape.clone();
    }

    public long elementCount() {
        return elementCount;
    }

    public long byteLength() {
        return elementCount * elementSize;
    }

    public long runCount() {
        return runCount;
    }

    long runLength() {
        return runLength;
    }

    /** @return a cursor on the first run */
    public RunCursor runs() {
        return new RunCursor(first, counts, strides, runLength, runCount);
    }
}
