package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.Limits;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;
import dev.safetensors.UnsupportedDtypeException;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A validated safetensors file whose tensors can be read: the header is read and checked once, when the file is
 * opened, and every tensor read then goes through the same source.
 *
 * <pre>{@code
 * try (SafetensorsFile file = SafetensorsFile.open(Path.of("model.safetensors"))) {
 *     float[] weights = file.readFloat32("model.embed.weight");
 *     try (OutputStream out = Files.newOutputStream(Path.of("bias.bin"))) {
 *         file.copyTensorTo("model.embed.bias", out);
 *     }
 * }
 * }</pre>
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li>Every tensor read makes exactly one {@link RandomAccessSource#openRange} of the tensor's bytes (one request
 *       for a remote source, however large the tensor) and streams it in 64 KiB blocks (rules 22 and 24).</li>
 *   <li>Interrupting the reading thread stops a read before its next block with an {@link InterruptedIOException};
 *       the interrupt flag stays set, and the file stays usable for other reads, on this thread once the flag is
 *       cleared and on other threads at once.</li>
 *   <li>A name the header does not contain fails with {@link InvalidHeaderException} {@link ErrorCode#TENSOR_NOT_FOUND}.
 *       Every bound is checked before a buffer of that size is allocated.</li>
 *   <li>Thread-safe: any number of threads may read concurrently. Reads after {@link #close()} fail with an
 *       {@link IOException} that says the file is closed.</li>
 * </ul>
 */
public final class SafetensorsFile implements Closeable {
    /** The largest array the JVM reliably allocates. */
    private static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

    private final RandomAccessSource source;
    private final SafetensorsHeader header;
    private final Limits limits;
    private final boolean closeSource;
    private volatile boolean closed;

    private SafetensorsFile(RandomAccessSource source, SafetensorsHeader header, Limits limits, boolean closeSource) {
        this.source = source;
        this.header = header;
        this.limits = limits;
        this.closeSource = closeSource;
    }

    /**
     * Opens a local file under the strict {@link Limits#DEFAULT} policy.
     *
     * @param path the file
     * @return the open file; closing it closes the file
     * @throws IOException if the file cannot be read or its header breaks a rule
     */
    public static SafetensorsFile open(Path path) throws IOException {
        return open(path, Limits.DEFAULT);
    }

    /**
     * Opens a local file.
     *
     * @param path   the file
     * @param limits the policy for the header and for {@link #readFloat32}
     * @return the open file; closing it closes the file
     * @throws IOException if the file cannot be read or its header breaks a rule
     */
    public static SafetensorsFile open(Path path, Limits limits) throws IOException {
        return open(FileSource.open(path), limits, true);
    }

    /**
     * Opens a source under the strict {@link Limits#DEFAULT} policy and takes ownership of it.
     *
     * @param source the source; closed by {@link #close()}, and at once if its header breaks a rule
     * @return the open file
     * @throws IOException if the source cannot be read or its header breaks a rule
     */
    public static SafetensorsFile open(RandomAccessSource source) throws IOException {
        return open(source, Limits.DEFAULT, true);
    }

    /**
     * Opens a source and takes ownership of it.
     *
     * @param source the source; closed by {@link #close()}, and at once if its header breaks a rule
     * @param limits the policy for the header and for {@link #readFloat32}
     * @return the open file
     * @throws IOException if the source cannot be read or its header breaks a rule
     */
    public static SafetensorsFile open(RandomAccessSource source, Limits limits) throws IOException {
        return open(source, limits, true);
    }

    /**
     * Opens a source, taking ownership of it or not.
     *
     * @param source      the source
     * @param limits      the policy for the header and for {@link #readFloat32}
     * @param closeSource {@code true} to close the source in {@link #close()} (and at once if its header breaks a
     *                    rule); {@code false} to leave a source the caller owns open in every case
     * @return the open file
     * @throws IOException if the source cannot be read or its header breaks a rule
     */
    public static SafetensorsFile open(RandomAccessSource source, Limits limits, boolean closeSource)
            throws IOException {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(limits, "limits");
        try {
            return new SafetensorsFile(source, Safetensors.readHeader(source, limits), limits, closeSource);
        } catch (IOException | RuntimeException e) {
            if (closeSource) {
                try {
                    source.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
    }

    /** @return the validated header; available after {@link #close()} too */
    public SafetensorsHeader header() {
        return header;
    }

    /**
     * Copies a tensor's bytes, exactly as stored (little-endian), to a channel, in 64 KiB blocks. The channel is not
     * closed.
     *
     * @param name the tensor
     * @param out  where the bytes go
     * @return the number of bytes copied, the tensor's byte length
     * @throws InvalidHeaderException  {@link ErrorCode#TENSOR_NOT_FOUND} for an unknown name
     * @throws InterruptedIOException if the thread is interrupted; some bytes may have been written
     * @throws IOException             if the source or the channel fails, or this file is closed
     */
    public long copyTensorTo(String name, WritableByteChannel out) throws IOException {
        Objects.requireNonNull(out, "out");
        TensorInfo t = tensor(name);
        // a direct block lets a file source read straight into it, without the JDK's hidden copy
        ByteBuffer block = ByteBuffer.allocateDirect((int) Math.min(RangeStreamer.BLOCK_BYTES, t.byteLength()));
        stream(t, block, b -> {
            while (b.hasRemaining()) {
                out.write(b);
            }
        });
        return t.byteLength();
    }

    /**
     * Copies a tensor's bytes, exactly as stored (little-endian), to a stream, in 64 KiB blocks. The stream is
     * neither flushed nor closed.
     *
     * @param name the tensor
     * @param out  where the bytes go
     * @return the number of bytes copied, the tensor's byte length
     * @throws InvalidHeaderException  {@link ErrorCode#TENSOR_NOT_FOUND} for an unknown name
     * @throws InterruptedIOException if the thread is interrupted; some bytes may have been written
     * @throws IOException             if the source or the stream fails, or this file is closed
     */
    public long copyTensorTo(String name, OutputStream out) throws IOException {
        Objects.requireNonNull(out, "out");
        TensorInfo t = tensor(name);
        ByteBuffer block = ByteBuffer.allocate((int) Math.min(RangeStreamer.BLOCK_BYTES, t.byteLength()));
        stream(t, block, b -> out.write(b.array(), b.arrayOffset() + b.position(), b.remaining()));
        return t.byteLength();
    }

    /**
     * Reads a tensor's bytes, exactly as stored, into a new heap buffer.
     *
     * @param name the tensor
     * @return a buffer positioned at 0 whose limit is the tensor's byte length, in {@link ByteOrder#LITTLE_ENDIAN}
     *         order, ready for {@code getFloat}, {@code getLong}, ...
     * @throws InvalidHeaderException  {@link ErrorCode#TENSOR_NOT_FOUND} for an unknown name;
     *                                 {@link ErrorCode#TOO_MANY_ELEMENTS} for a tensor of more than
     *                                 {@code Integer.MAX_VALUE - 8} bytes, which no buffer holds (checked before
     *                                 allocating; use {@link #copyTensorTo} for those)
     * @throws InterruptedIOException if the thread is interrupted
     * @throws IOException             if the source fails, or this file is closed
     */
    public ByteBuffer readBytes(String name) throws IOException {
        TensorInfo t = tensor(name);
        if (t.byteLength() > MAX_ARRAY) {
            throw new InvalidHeaderException(ErrorCode.TOO_MANY_ELEMENTS, source.name(), "the tensor has "
                    + t.byteLength() + " bytes, more than a ByteBuffer holds (" + MAX_ARRAY
                    + "); copy it with copyTensorTo instead", t.name(), -1);
        }
        ByteBuffer result = ByteBuffer.allocate((int) t.byteLength()).order(ByteOrder.LITTLE_ENDIAN);
        stream(t, ByteBuffer.allocate((int) Math.min(RangeStreamer.BLOCK_BYTES, t.byteLength())), result::put);
        return result.flip();
    }

    /**
     * Reads an F32, F16 or BF16 tensor (under a policy that accepts them, F8_E4M3 and F8_E5M2 too) into a new
     * {@code float[]}, widening exactly: every value, subnormals, infinities, -0.0 and NaN signs and payloads
     * included, stays what it is (rule 23). Elements are in the file's row-major order.
     *
     * @param name the tensor
     * @return the elements, as many as {@link TensorInfo#elementCount()}
     * @throws InvalidHeaderException     {@link ErrorCode#TENSOR_NOT_FOUND} for an unknown name;
     *                                    {@link ErrorCode#TOO_MANY_ELEMENTS} for more elements than
     *                                    {@link Limits#maxFloat32Elements()}, checked before allocating
     * @throws UnsupportedDtypeException  {@link ErrorCode#NOT_FLOAT_READABLE} for any other dtype
     * @throws InterruptedIOException    if the thread is interrupted
     * @throws IOException                if the source fails, or this file is closed
     */
    public float[] readFloat32(String name) throws IOException {
        TensorInfo t = floatReadable(name);
        if (t.elementCount() > limits.maxFloat32Elements()) {
            throw new InvalidHeaderException(ErrorCode.TOO_MANY_ELEMENTS, source.name(), "the tensor has "
                    + t.elementCount() + " elements, more than the limit of " + limits.maxFloat32Elements()
                    + " for readFloat32", t.name(), -1);
        }
        float[] result = new float[(int) t.elementCount()];
        widenInto(t, FloatBuffer.wrap(result));
        return result;
    }

    /**
     * Reads an F32, F16 or BF16 tensor (under a policy that accepts them, F8_E4M3 and F8_E5M2 too) into the caller's
     * buffer, widening exactly as {@link #readFloat32(String)} does. The elements are written from the buffer's
     * position, which advances past them. {@link Limits#maxFloat32Elements()} does not apply: the caller's buffer is
     * the bound.
     *
     * @param name the tensor
     * @param dst  where the elements go; must have room for all of them
     * @return the number of elements written
     * @throws IllegalArgumentException   if {@code dst} has fewer than {@link TensorInfo#elementCount()} floats of
     *                                    room (checked before reading; nothing is written)
     * @throws ReadOnlyBufferException if {@code dst} is read-only
     * @throws InvalidHeaderException     {@link ErrorCode#TENSOR_NOT_FOUND} for an unknown name
     * @throws UnsupportedDtypeException  {@link ErrorCode#NOT_FLOAT_READABLE} for any other dtype
     * @throws InterruptedIOException    if the thread is interrupted; some elements may have been written
     * @throws IOException                if the source fails, or this file is closed
     */
    public int readFloat32(String name, FloatBuffer dst) throws IOException {
        Objects.requireNonNull(dst, "dst");
        TensorInfo t = floatReadable(name);
        if (dst.remaining() < t.elementCount()) {
            throw new IllegalArgumentException(source.name() + ": tensor \"" + t.name() + "\" has "
                    + t.elementCount() + " elements, the buffer has room for " + dst.remaining());
        }
        if (dst.isReadOnly()) {
            throw new ReadOnlyBufferException();
        }
        widenInto(t, dst);
        return (int) t.elementCount();
    }

    /**
     * Closes the source if this file owns it. Reads in progress on other threads may fail; later reads fail with an
     * {@link IOException}. Idempotent.
     *
     * @throws IOException if closing the source fails
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        if (closeSource) {
            source.close();
        }
    }

    @Override
    public String toString() {
        return "SafetensorsFile[" + header + "]";
    }

    private void widenInto(TensorInfo t, FloatBuffer dst) throws IOException {
        ByteBuffer block = ByteBuffer.allocate((int) Math.min(RangeStreamer.BLOCK_BYTES, t.byteLength()));
        if (dst.hasArray()) {
            float[] array = dst.array();
            stream(t, block, b -> {
                int n = Float32Widening.widen(t.dtype(), b, array, dst.arrayOffset() + dst.position());
                dst.position(dst.position() + n);
            });
        } else {
            // a direct buffer: widen each block into a scratch array, then one bulk put
            float[] scratch = new float[block.capacity() / t.dtype().byteSize()];
            stream(t, block, b -> dst.put(scratch, 0, Float32Widening.widen(t.dtype(), b, scratch, 0)));
        }
    }

    private TensorInfo floatReadable(String name) throws IOException {
        TensorInfo t = tensor(name);
        if (!Float32Widening.supports(t.dtype())) {
            throw new UnsupportedDtypeException(ErrorCode.NOT_FLOAT_READABLE, source.name(), "dtype " + t.dtype()
                    + " cannot be read as float32; readable are F32, F16, BF16, F8_E4M3 and F8_E5M2", t.name(), -1);
        }
        return t;
    }

    private TensorInfo tensor(String name) throws IOException {
        Objects.requireNonNull(name, "name");
        ensureOpen();
        return header.tensor(name).orElseThrow(() -> new InvalidHeaderException(ErrorCode.TENSOR_NOT_FOUND,
                source.name(), "no tensor of that name among the " + header.tensors().size() + " in the header",
                name, -1));
    }

    private void stream(TensorInfo t, ByteBuffer block, BlockSink sink) throws IOException {
        ensureOpen();
        RangeStreamer.stream(source, header.payloadOffset() + t.begin(), t.byteLength(), block, sink);
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException(source.name() + ": the SafetensorsFile is closed");
        }
    }
}
