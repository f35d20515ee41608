package dev.safetensors.core;

import dev.safetensors.DType;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import dev.safetensors.core.internal.read.RangeStreamer;

/**
 * One tensor queued in a {@link SafetensorsWriter}: its name, dtype and shape as given, and its bytes, held by
 * reference until written: either a {@link TensorSource} (memory, a channel, a range of a source), or a
 * {@code float[]} encoded block by block while it is written, so a large F32 tensor is never held twice.
 */
final class WriterEntry {
    private final String name;
    private final DType dtype;
    private final long[] shape;
    private final TensorSource source;
    private final float[] floats;

    private WriterEntry(String name, DType dtype, long[] shape, TensorSource source, float[] floats) {
        this.name = name;
        this.dtype = dtype;
        this.shape = shape.clone();
        this.source = source;
        this.floats = floats;
    }

    static WriterEntry of(String name, DType dtype, long[] shape, TensorSource source) {
        return new WriterEntry(name, dtype, shape, source, null);
    }

    static WriterEntry ofFloats(String name, long[] shape, float[] floats) {
        return ofFloats(name, DType.F32, shape, floats);
    }

    /**
     * @param dtype F32, F16 or BF16: the values are narrowed block by block as they are written
     * @throws IllegalArgumentException for another dtype
     */
    static WriterEntry ofFloats(String name, DType dtype, long[] shape, float[] floats) {
        if (!Float32Narrowing.supports(dtype)) {
            throw new IllegalArgumentException("float values are written as F32, F16 or BF16, not " + dtype);
        }
        return new WriterEntry(name, dtype, shape, null, floats);
    }

    String name() {
        return name;
    }

    DType dtype() {
        return dtype;
    }

    long[] shape() {
        return shape;
    }

    /** @return the number of bytes {@link #writeTo} writes */
    long byteLength() {
        return source != null ? source.length() : (long) dtype.byteSize() * floats.length;
    }

    void writeTo(BlockCopy out) throws IOException {
        if (source != null) {
            out.copy(source);
            return;
        }
        ByteBuffer block = ByteBuffer.allocate((int) Math.min(RangeStreamer.BLOCK_BYTES, byteLength()))
                .order(ByteOrder.LITTLE_ENDIAN);
        int size = dtype.byteSize();
        int perBlock = block.capacity() / size;
        for (int i = 0; i < floats.length; i += perBlock) {
            int n = Math.min(perBlock, floats.length - i);
            block.clear();
            // round to nearest even for F16 and BF16; F32 keeps every bit
            Float32Narrowing.narrow(dtype, floats, i, n, block);
            block.flip();
            out.write(block);
        }
    }
}
