package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.TensorAccessException;
import dev.safetensors.TensorInfo;
import dev.safetensors.UnsupportedDtypeException;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.ReadOnlyBufferException;
import java.util.Arrays;
import dev.safetensors.core.internal.read.SlicePlan;

/**
 * A sub-tensor of a tensor, planned and ready to read, as {@code get_slice(name)[a:b, :, c:d]} is in the official
 * crate: made by {@link SafetensorsFile#slice}. The result keeps the tensor's rank, and its elements come in
 * row-major order.
 *
 * <p>Reading fetches only the contiguous byte runs the slice covers: from a local file through the memory mapping;
 * from a remote source with one ranged request per run, where runs closer than
 * {@link ReadOptions#coalesceGapBytes()} share a request and requests longer than
 * {@link ReadOptions#partSizeBytes()} are cut into parts fetched {@link ReadOptions#parallelism()} at a time. A row
 * range of a matrix is one run, hence one request (several parts above the part size).
 *
 * <p>Immutable and thread-safe; reads fail once the file is closed.
 */
public final class TensorSlice {
    private final SafetensorsFile file;
    private final TensorInfo tensor;
    private final SlicePlan plan;

    TensorSlice(SafetensorsFile file, TensorInfo tensor, SlicePlan plan) {
        this.file = file;
        this.tensor = tensor;
        this.plan = plan;
    }

    /** @return the tensor sliced */
    public TensorInfo tensor() {
        return tensor;
    }

    /** @return the slice's shape: one size per dimension of the tensor */
    public long[] shape() {
        return plan.shape();
    }

    /** @return the number of elements, the product of {@link #shape()} */
    public long elementCount() {
        return plan.elementCount();
    }

    /** @return the bytes of the result, {@code elementCount() x} the element size */
    public long byteLength() {
        return plan.byteLength();
    }

    /** @return how many contiguous byte runs of the file the slice covers */
    public long runCount() {
        return plan.runCount();
    }

    /**
     * Reads the slice's bytes, as stored, into a new heap buffer.
     *
     * @return a little-endian buffer positioned at 0 whose limit is {@link #byteLength()}
     * @throws TensorAccessException   {@link ErrorCode#TOO_MANY_ELEMENTS} for more than {@code Integer.MAX_VALUE - 8}
     *                                 bytes, checked before allocating
     * @throws InterruptedIOException if the thread is interrupted
     * @throws IOException             if the source fails, or the file is closed
     */
    public ByteBuffer readBytes() throws IOException {
        if (byteLength() > SafetensorsFile.MAX_ARRAY) {
            throw new TensorAccessException(ErrorCode.TOO_MANY_ELEMENTS, file.sourceName(), tensor.name(), "the slice"
                    + " has " + byteLength() + " bytes, more than a ByteBuffer holds; read it into buffers of your own");
        }
        ByteBuffer result = ByteBuffer.allocate((int) byteLength()).order(ByteOrder.LITTLE_ENDIAN);
        readBytes(result);
        return result.flip();
    }

    /**
     * Reads the slice's bytes, as stored, into the caller's buffer (heap or direct) from its position, which advances
     * past them.
     *
     * @param dst where the bytes go
     * @return the number of bytes written, {@link #byteLength()}
     * @throws TensorAccessException   {@link ErrorCode#TOO_MANY_ELEMENTS} if {@code dst} has less room (checked
     *                                 before reading; nothing is written)
     * @throws ReadOnlyBufferException if {@code dst} is read-only
     * @throws InterruptedIOException if the thread is interrupted; some bytes may have been written
     * @throws IOException             if the source fails, or the file is closed
     */
    public long readBytes(ByteBuffer dst) throws IOException {
        file.checkRoom(tensor, byteLength(), dst.remaining(), "bytes");
        if (dst.isReadOnly()) {
            throw new ReadOnlyBufferException();
        }
        file.read(tensor, plan, PieceSink.bytes(dst));
        dst.position(dst.position() + (int) byteLength());
        return byteLength();
    }

    /**
     * Reads the slice widened to float32, exactly as {@link SafetensorsFile#readFloat32(String)} widens.
     *
     * @return the elements in row-major order
     * @throws UnsupportedDtypeException {@link ErrorCode#NOT_FLOAT_READABLE} for a dtype that is not widened
     * @throws TensorAccessException     {@link ErrorCode#TOO_MANY_ELEMENTS} for more elements than the file's
     *                                   {@link dev.safetensors.Limits#maxFloat32Elements()}
     * @throws IOException               if the source fails, or the file is closed
     */
    public float[] readFloat32() throws IOException {
        file.checkFloatReadable(tensor);
        file.checkFloatLimit(tensor, elementCount());
        float[] result = new float[(int) elementCount()];
        readFloat32(FloatBuffer.wrap(result));
        return result;
    }

    /**
     * Reads the slice widened to float32 into the caller's buffer (heap or direct) from its position, which advances
     * past the elements. The buffer is the bound: {@link dev.safetensors.Limits#maxFloat32Elements()} does not apply.
     *
     * @param dst where the elements go
     * @return the number of elements written
     * @throws UnsupportedDtypeException {@link ErrorCode#NOT_FLOAT_READABLE} for a dtype that is not widened
     * @throws TensorAccessException     {@link ErrorCode#TOO_MANY_ELEMENTS} if {@code dst} has less room
     * @throws ReadOnlyBufferException   if {@code dst} is read-only
     * @throws IOException               if the source fails, or the file is closed
     */
    public long readFloat32(FloatBuffer dst) throws IOException {
        file.checkFloatReadable(tensor);
        file.checkRoom(tensor, elementCount(), dst.remaining(), "elements");
        if (dst.isReadOnly()) {
            throw new ReadOnlyBufferException();
        }
        file.read(tensor, plan, PieceSink.floats(tensor.dtype(), dst));
        dst.position(dst.position() + (int) elementCount());
        return elementCount();
    }

    @Override
    public String toString() {
        return tensor.name() + Arrays.toString(plan.shape()) + " of " + tensor;
    }
}
