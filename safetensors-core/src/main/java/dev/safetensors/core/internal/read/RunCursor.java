package dev.safetensors.core.internal.read;

/**
 * Walks the contiguous byte runs of a slice in file order, as an odometer over the dimensions that are not taken
 * whole. Offsets are relative to the tensor's first byte. Holds O(rank) state, whatever the number of runs; not
 * thread-safe, {@link #copy()} for another walker.
 */
public final class RunCursor {
    private final long[] counts;
    private final long[] strides;
    private final long runLength;
    private final long[] counters;
    private long offset;
    private long remaining;

    /**
     * @param first     the offset of the first run
     * @param counts    how many positions each iterated dimension takes, outermost first
     * @param strides   the bytes between two positions of each iterated dimension
     * @param runLength the bytes of every run
     * @param runCount  the product of {@code counts}, or 0 for no runs
     */
    public RunCursor(long first, long[] counts, long[] strides, long runLength, long runCount) {
        this.counts = counts;
        this.strides = strides;
        this.runLength = runLength;
        this.counters = new long[counts.length];
        this.offset = first;
        this.remaining = runCount;
    }

    private RunCursor(RunCursor other) {
        this.counts = other.counts;
        this.strides = other.strides;
        this.runLength = other.runLength;
        this.counters = other.counters.clone();
        this.offset = other.offset;
        this.remaining = other.remaining;
    }

    /** @return whether the cursor is on a run */
    public boolean valid() {
        return remaining > 0;
    }

    /** @return the current run's first byte */
    public long offset() {
        return offset;
    }

    /** @return the bytes of every run */
    public long length() {
        return runLength;
    }

    /** Moves to the next run, if any. */
    public void next() {
        if (--remaining <= 0) {
            return;
        }
        for (int j = counts.length - 1; j >= 0; j--) {
            offset += strides[j];
            if (++counters[j] < counts[j]) {
                return;
            }
            offset -= counts[j] * strides[j];
            counters[j] = 0;
        }
    }

    /** @return an independent cursor at the same run */
    RunCursor copy() {
        return new RunCursor(this);
    }
}
