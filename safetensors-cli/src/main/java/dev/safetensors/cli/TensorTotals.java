package dev.safetensors.cli;

import dev.safetensors.DType;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * What one file, or a whole checkpoint, holds: sizes of the parts, tensor and parameter counts, and the same by
 * dtype. Sums cannot overflow: every count is bounded by the bytes of real files.
 *
 * @param fileBytes    the size of the file(s)
 * @param headerBytes  the header lengths N (padding included), summed
 * @param payloadBytes the payload lengths, summed
 * @param tensors      the number of tensors
 * @param parameters   the number of elements over all tensors
 * @param byDtype      the same counts per dtype, in {@link DType} order
 */
record TensorTotals(long fileBytes, long headerBytes, long payloadBytes, long tensors, long parameters,
                    Map<DType, PerDtype> byDtype) {

    /**
     * @param tensors    the number of tensors of this dtype
     * @param parameters their elements
     * @param bytes      their bytes
     */
    record PerDtype(long tensors, long parameters, long bytes) {
        PerDtype plus(PerDtype o) {
            return new PerDtype(tensors + o.tensors, parameters + o.parameters, bytes + o.bytes);
        }
    }

    /** Nothing at all: the starting point of a checkpoint's sum. */
    static final TensorTotals NONE = new TensorTotals(0, 0, 0, 0, 0, Map.of());

    /**
     * @param header a validated header
     * @return its totals
     */
    static TensorTotals of(SafetensorsHeader header) {
        Map<DType, PerDtype> by = new EnumMap<>(DType.class);
        long parameters = 0;
        for (TensorInfo t : header.tensors()) {
            parameters += t.elementCount();
            by.merge(t.dtype(), new PerDtype(1, t.elementCount(), t.byteLength()), PerDtype::plus);
        }
        return new TensorTotals(header.fileSize(), header.headerLength(), header.payloadLength(),
                header.tensors().size(), parameters, Collections.unmodifiableMap(by));
    }

    /**
     * @param o other totals
     * @return the sum of both
     */
    TensorTotals plus(TensorTotals o) {
        Map<DType, PerDtype> by = new EnumMap<>(DType.class);
        by.putAll(byDtype);
        o.byDtype.forEach((k, v) -> by.merge(k, v, PerDtype::plus));
        return new TensorTotals(fileBytes + o.fileBytes, headerBytes + o.headerBytes, payloadBytes + o.payloadBytes,
                tensors + o.tensors, parameters + o.parameters, Collections.unmodifiableMap(by));
    }
}
