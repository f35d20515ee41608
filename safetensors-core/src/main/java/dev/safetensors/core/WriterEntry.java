package dev.safetensors.core;

import dev.safetensors.DType;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.WritableByteChannel;

/**
 * One tensor queued in a {@link SafetensorsWriter}: its name, dtype and shape as given, and its bytes, held by
 * reference until written: either little-endian bytes as given, or a {@code float[]} encoded block by block while it
 * is written, so a large F32 tensor is never held twice.
 */
final class WriterEntry {
    private final String name;
    private final DType dtype;
    private final long[] shape;
    private final ByteBuffer bytes;
    private final float[] floats;

    private WriterEntry(String name, DType dtype, long[] shape, ByteBuffer bytes, float[] floats) {
        this.name = name;
        this.dtype = dtype;
        this.shape = shape.clone();
        this.bytes = bytes;
        this.floats = floats;
    }

    /** @param bytes the remaining bytes are the tensor's (the buffer itself is not changed) */
    static WriterEntry ofBytes(String name, DType dtype, long[] shape, ByteBuffer bytes) {
        return new WriterEntry(name, dtype, shape, bytes.slice(), null);
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
        return bytes != null ? bytes.remaining() : 4L * floats.length;
    }

    void writeTo(WritableByteChannel out) throws IOException {
        if (bytes != null) {
            writeFully(out, bytes.duplicate());
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
            writeFully(out, block);
        }
    }

    static void writeFully(WritableByteChannel out, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            out.write(b);
        }
    }
}
