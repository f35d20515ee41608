package dev.safetensors.core.internal.header;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.TensorInfo;

import java.util.Comparator;
import java.util.List;

/**
 * Rule 21: sorted by {@code (begin, end)}, the tensors tile the payload exactly. One sort, then one linear pass,
 * as in the official crate.
 */
public final class TensorLayout {
    private static final Comparator<TensorInfo> DATA_ORDER =
            Comparator.comparingLong(TensorInfo::begin).thenComparingLong(TensorInfo::end);
    private static final Comparator<Span> SPAN_ORDER =
            Comparator.comparingLong(Span::begin).thenComparingLong(Span::end);

    /** The range of an entry whose dtype the format does not define, so that no {@link TensorInfo} exists for it. */
    record Span(String name, long begin, long end) {
    }

    private TensorLayout() {
    }

    /**
     * Sorts {@code tensors} into data order in place and checks that they tile {@code [0, payloadLength)}.
     *
     * @throws InvalidHeaderException with OUT_OF_FILE, OFFSETS_GAP, OFFSETS_OVERLAP or TRAILING_BYTES
     */
    static void sortAndCheck(String source, List<TensorInfo> tensors, long payloadLength)
            throws InvalidHeaderException {
        tensors.sort(DATA_ORDER);
        Tiling tiling = new Tiling(source, payloadLength);
        for (TensorInfo t : tensors) {
            tiling.next(t.name(), t.begin(), t.end());
        }
        tiling.finish();
    }

    /**
     * Checks that {@code spans} tile {@code [0, payloadLength)}, for a header with entries of undefined dtypes:
     * their byte length cannot be verified, but their ranges are as much part of the layout as any other.
     *
     * @param spans every entry's range, in any order; sorted in place
     * @throws InvalidHeaderException with OUT_OF_FILE, OFFSETS_GAP, OFFSETS_OVERLAP or TRAILING_BYTES
     */
    static void checkSpans(String source, List<Span> spans, long payloadLength) throws InvalidHeaderException {
        spans.sort(SPAN_ORDER);
        Tiling tiling = new Tiling(source, payloadLength);
        for (Span s : spans) {
            tiling.next(s.name(), s.begin(), s.end());
        }
        tiling.finish();
    }

    /** The linear pass over ranges in data order. */
    private static final class Tiling {
        private final String source;
        private final long payloadLength;
        private long expected;

        Tiling(String source, long payloadLength) {
            this.source = source;
            this.payloadLength = payloadLength;
        }

        void next(String name, long begin, long end) throws InvalidHeaderException {
            if (end > payloadLength) {
                throw new InvalidHeaderException(ErrorCode.OUT_OF_FILE, source, "data_offsets [" + begin + ", "
                        + end + ") end past the payload, which has " + payloadLength + " bytes", name, -1);
            }
            if (begin > expected) {
                throw new InvalidHeaderException(ErrorCode.OFFSETS_GAP, source, "payload bytes [" + expected + ", "
                        + begin + ") belong to no tensor", name, -1);
            }
            if (begin < expected) {
                throw new InvalidHeaderException(ErrorCode.OFFSETS_OVERLAP, source, "data_offsets [" + begin
                        + ", " + end + ") overlap the previous tensor, which ends at " + expected, name, -1);
            }
            expected = end;
        }

        void finish() throws InvalidHeaderException {
            if (expected < payloadLength) {
                throw new InvalidHeaderException(ErrorCode.TRAILING_BYTES, source, "payload bytes [" + expected
                        + ", " + payloadLength + ") after the last tensor belong to no tensor");
            }
        }
    }
}
