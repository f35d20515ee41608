package dev.safetensors.core;

import dev.safetensors.DType;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

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
        return new WriterEntry(name, DType.F32, shape, null, floats);
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
        return source != null ? source.length() : 4L * floats.length;
    }

    void writeTo(BlockCopy out) throws IOException {
        if (source != null) {
            out.copy(source);
            return;
        }
        ByteBuffer block = ByteBuffer.allocate((int) Math.min(RangeStreamer.BLOCK_BYTES, byteLength()))
                .order(ByteOrder.LITTLE_ENDIAN);
        int perBlock = block.capacity() / 4;
        for (int i = 0; i < floats.length; i += perBlock) {
            int n = Math.min(perBlock, floats.length - i);
            block.clear();
            block.asFloatBuffer().put(floats, i, n);
            block.limit(4 * n);
            out.write(block);
        }
    }
}
