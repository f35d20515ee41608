package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.TensorInfo;

import java.util.Comparator;
import java.util.List;

/**
 * Rule 21: sorted by {@code (begin, end)}, the tensors tile the payload exactly. One sort, then one linear pass,
 * as in the official crate.
 */
final class TensorLayout {
    private static final Comparator<TensorInfo> DATA_ORDER =
            Comparator.comparingLong(TensorInfo::begin).thenComparingLong(TensorInfo::end);

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
        long expected = 0;
        for (TensorInfo t : tensors) {
            if (t.end() > payloadLength) {
                throw new InvalidHeaderException(ErrorCode.OUT_OF_FILE, source, "data_offsets [" + t.begin() + ", "
                        + t.end() + ") end past the payload, which has " + payloadLength + " bytes", t.name(), -1);
            }
            if (t.begin() > expected) {
                throw new InvalidHeaderException(ErrorCode.OFFSETS_GAP, source, "payload bytes [" + expected + ", "
                        + t.begin() + ") belong to no tensor", t.name(), -1);
            }
            if (t.begin() < expected) {
                throw new InvalidHeaderException(ErrorCode.OFFSETS_OVERLAP, source, "data_offsets [" + t.begin()
                        + ", " + t.end() + ") overlap the previous tensor, which ends at " + expected, t.name(), -1);
            }
            expected = t.end();
        }
        if (expected < payloadLength) {
            throw new InvalidHeaderException(ErrorCode.TRAILING_BYTES, source, "payload bytes [" + expected + ", "
                    + payloadLength + ") after the last tensor belong to no tensor");
        }
    }
}
