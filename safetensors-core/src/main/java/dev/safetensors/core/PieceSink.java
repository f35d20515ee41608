package dev.safetensors.core;

import dev.safetensors.DType;

import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import dev.safetensors.core.internal.read.RangeStreamer;

/**
 * Receives the pieces of a tensor or slice at their place in the result: bytes copied into a caller's buffer, or
 * elements widened into floats. Pieces are whole elements.
 */
interface PieceSink {
    /**
     * @param at     the piece's byte offset in the result
     * @param src    holds the piece; its position, limit and order are not used or changed
     * @param index  the piece's first byte in {@code src}
     * @param length the piece's byte length
     */
    void put(long at, ByteBuffer src, int index, int length);

    /** @return a sink that copies into {@code dst} from its position, which it does not move */
    static PieceSink bytes(ByteBuffer dst) {
        int base = dst.position();
        return (at, src, index, length) -> dst.put(base + (int) at, src, index, length);
    }

    /** @return a sink that widens {@code dtype} elements into {@code dst} from its position, which it does not move */
    static PieceSink floats(DType dtype, FloatBuffer dst) {
        int size = dtype.byteSize();
        int base = dst.position();
        if (dst.hasArray()) {
            float[] array = dst.array();
            int offset = dst.arrayOffset() + base;
            // pieces from a mapping are copied to the heap first: one bulk copy of a block that stays in cache, then
            // the array loops, measured faster than reading a direct buffer element by element
            byte[] staging = new byte[RangeStreamer.BLOCK_BYTES];
            ByteBuffer staged = ByteBuffer.wrap(staging);
            return (at, src, index, length) -> {
                if (src.hasArray()) {
                    Float32Widening.widen(dtype, src, index, length, array, offset + (int) (at / size));
                } else {
                    src.get(index, staging, 0, length);
                    Float32Widening.widen(dtype, staged, 0, length, array, offset + (int) (at / size));
                }
            };
        }
        // a direct buffer: widen a block at a time into a scratch array, then one bulk put
        float[] scratch = new float[RangeStreamer.BLOCK_BYTES / size];
        return (at, src, index, length) -> {
            for (int done = 0; done < length; ) {
                int n = Math.min(length - done, scratch.length * size);
                int floats = Float32Widening.widen(dtype, src, index + done, n, scratch, 0);
                dst.put(base + (int) ((at + done) / size), scratch, 0, floats);
                done += n;
            }
        };
    }
}
