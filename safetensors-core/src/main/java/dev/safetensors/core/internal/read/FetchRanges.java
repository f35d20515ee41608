package dev.safetensors.core.internal.read;

/**
 * The requests a slice needs: runs closer than a gap share one request, and a request longer than a maximum is cut
 * into several (each a whole number of elements, since runs start on elements and the maximum is a multiple of 8).
 * Generated one at a time from a {@link RunCursor}, so a slice of millions of runs needs no list of them.
 * Offsets are relative to the tensor's first byte.
 */
public final class FetchRanges {
    private final RunCursor runs;
    private final long gap;
    private final long maxLength;
    private long groupNext;
    private long groupEnd;
    private long start;
    private long length;

    /**
     * @param runs      the slice's runs (consumed)
     * @param gap       the largest gap between two runs of one request
     * @param maxLength the longest request, a multiple of 8
     */
    public FetchRanges(RunCursor runs, long gap, long maxLength) {
        this.runs = runs;
        this.gap = gap;
        this.maxLength = maxLength;
    }

    /**
     * The requests that fetch one contiguous span, such as the rest of a file a download fetches.
     *
     * @param length    the span's bytes, from offset 0
     * @param partBytes the longest request, a multiple of 8; {@link Long#MAX_VALUE} for one request for the whole span
     * @return the requests, in order
     */
    public static FetchRanges span(long length, long partBytes) {
        return new FetchRanges(new RunCursor(0, new long[0], new long[0], length, 1), 0, partBytes & ~7L);
    }

    /** @return whether there is another request; its range is then {@link #start()} and {@link #length()} */
    public boolean next() {
        if (groupNext == groupEnd) {
            if (!runs.valid()) {
                return false;
            }
            groupNext = runs.offset();
            groupEnd = runs.offset() + runs.length();
            runs.next();
            while (runs.valid() && runs.offset() - groupEnd <= gap) {
                groupEnd = runs.offset() + runs.length();
                runs.next();
            }
        }
        start = groupNext;
        length = Math.min(maxLength, groupEnd - groupNext);
        groupNext += length;
        return true;
    }

    public long start() {
        return start;
    }

    public long length() {
        return length;
    }
}
