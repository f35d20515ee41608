package dev.safetensors.core;

import dev.safetensors.DType;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * What a file, or a whole checkpoint, holds: the sizes of its parts, its tensors and their elements, and the same by
 * dtype. Every count is bounded by the bytes of validated files, but a remote file's size is its server's claim, so
 * sums saturate at {@link Long#MAX_VALUE} rather than wrap.
 *
 * @param fileBytes    the size of the file(s)
 * @param headerBytes  the header lengths N (padding included), summed
 * @param payloadBytes the payload lengths, summed
 * @param tensors      the number of tensors
 * @param parameters   the number of elements over all tensors (stored elements: packed quantized weights count as
 *                     stored; {@link CheckpointMetadata} counts what they pack)
 * @param byDtype      the same counts per dtype, in {@link DType} order
 */
public record TensorTotals(long fileBytes, long headerBytes, long payloadBytes, long tensors, long parameters,
                           Map<DType, PerDtype> byDtype) {

    /** Nothing at all: the starting point of a sum. */
    public static final TensorTotals NONE = new TensorTotals(0, 0, 0, 0, 0, Map.of());

    /**
     * Copies the map, in dtype order.
     *
     * @param fileBytes    the size of the file(s)
     * @param headerBytes  the header lengths, summed
     * @param payloadBytes the payload lengths, summed
     * @param tensors      the number of tensors
     * @param parameters   the number of elements
     * @param byDtype      the counts per dtype
     */
    public TensorTotals {
        byDtype = byDtype.isEmpty() ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(byDtype));
    }

    /**
     * The counts of one dtype.
     *
     * @param tensors    the number of tensors of this dtype
     * @param parameters their elements
     * @param bytes      their bytes
     */
    public record PerDtype(long tensors, long parameters, long bytes) {
        /**
         * @param o other counts
         * @return the sum of both
         */
        public PerDtype plus(PerDtype o) {
            return new PerDtype(sum(tensors, o.tensors), sum(parameters, o.parameters),
                    sum(bytes, o.bytes));
        }
    }

    /**
     * @param header a validated header
     * @return its totals
     */
    public static TensorTotals of(SafetensorsHeader header) {
        Map<DType, PerDtype> by = new EnumMap<>(DType.class);
        long parameters = 0;
        for (TensorInfo t : header.tensors()) {
            parameters = sum(parameters, t.elementCount());
            by.merge(t.dtype(), new PerDtype(1, t.elementCount(), t.byteLength()), PerDtype::plus);
        }
        return new TensorTotals(header.fileSize(), header.headerLength(), header.payloadLength(),
                header.tensors().size(), parameters, by);
    }

    /**
     * @param headers validated headers
     * @return the sum of their totals
     */
    public static TensorTotals of(Iterable<SafetensorsHeader> headers) {
        TensorTotals sum = NONE;
        for (SafetensorsHeader h : headers) {
            sum = sum.plus(of(h));
        }
        return sum;
    }

    private static long sum(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    /**
     * @param o other totals
     * @return the sum of both
     */
    public TensorTotals plus(TensorTotals o) {
        Map<DType, PerDtype> by = new EnumMap<>(DType.class);
        by.putAll(byDtype);
        o.byDtype.forEach((k, v) -> by.merge(k, v, PerDtype::plus));
        return new TensorTotals(sum(fileBytes, o.fileBytes), sum(headerBytes, o.headerBytes),
                sum(payloadBytes, o.payloadBytes), sum(tensors, o.tensors),
                sum(parameters, o.parameters), by);
    }
}
