package dev.safetensors.core;

import dev.safetensors.Slice;
import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.StorageException;
import dev.safetensors.TensorAccessException;
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
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.Objects;
import dev.safetensors.core.internal.header.PrefixCapture;
import dev.safetensors.core.internal.read.RangeStreamer;
import dev.safetensors.core.internal.read.SlicePlan;

/**
 * A validated safetensors file whose tensors can be read: the header is read and checked once, when the file is
 * opened, and every tensor read then goes through the same source.
 *
 * <pre>{@code
 * try (SafetensorsFile file = SafetensorsFile.open(Path.of("model.safetensors"))) {
 *     float[] weights = file.readFloat32("model.embed.weight");
 *     ByteBuffer view = file.map("model.embed.weight");                  // zero-copy, local files only
 *     float[] rows = file.slice("lm_head.weight", Slice.range(0, 8)).readFloat32();
 *     try (OutputStream out = Files.newOutputStream(Path.of("bias.bin"))) {
 *         file.copyTensorTo("model.embed.bias", out);
 *     }
 * }
 * }</pre>
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li>A tensor that lies within the bytes read with the header (the first {@link Limits#prefetchBytes()}) costs no
 *       request. Otherwise a tensor read is one {@link RandomAccessSource#openRange} of the tensor's bytes, streamed
 *       in 64 KiB blocks (rules 22 and 24); from a remote source, a tensor longer than
 *       {@link ReadOptions#partSizeBytes()} is fetched in parts over {@link ReadOptions#parallelism()} concurrent
 *       requests and handed on in order. A local file ({@link FileSource}) is read directly or through a read-only
 *       memory mapping.</li>
 *   <li>Interrupting the reading thread stops a read before its next block with an {@link InterruptedIOException};
 *       the interrupt flag stays set, and the file stays usable for other reads, on this thread once the flag is
 *       cleared and on other threads at once.</li>
 *   <li>A name the header does not contain fails with {@link TensorAccessException} {@link ErrorCode#TENSOR_NOT_FOUND};
 *       a tensor too large for the array or buffer asked for with {@link ErrorCode#TOO_MANY_ELEMENTS}, checked before
 *       anything is allocated or read.</li>
 *   <li>Thread-safe: any number of threads may read concurrently. Reads after {@link #close()} fail with an
 *       {@link IOException} that says the file is closed. Buffers returned by {@link #map} stay readable after
 *       {@link #close()}: their mapping is released by the garbage collector, never explicitly, so no access can
 *       touch unmapped memory.</li>
 * </ul>
 */
public final class SafetensorsFile implements Closeable {
    /** The largest array the JVM reliably allocates. */
    static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

    private final RandomAccessSource source;
    private final SafetensorsHeader header;
    private final Limits limits;
    private final boolean closeSource;
    private final TensorReader reader;
    private volatile boolean closed;

    private SafetensorsFile(RandomAccessSource source, SafetensorsHeader header, Limits limits, boolean closeSource,
                            TensorReader reader) {
        this.source = source;
        this.header = header;
        this.limits = limits;
        this.closeSource = closeSource;
        this.reader = reader;
    }

    /**
     * Opens a local file under the strict {@link Limits#STRICT} policy.
     *
     * @param path the file
     * @return the open file; closing it closes the file
     * @throws IOException if the file cannot be read or its header breaks a rule
     */
    public static SafetensorsFile open(Path path) throws IOException {
        return open(path, Limits.STRICT);
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
     * Opens a source under the strict {@link Limits#STRICT} policy and takes ownership of it.
     *
     * @param source the source; closed by {@link #close()}, and at once if its header breaks a rule
     * @return the open file
     * @throws IOException if the source cannot be read or its header breaks a rule
     */
    public static SafetensorsFile open(RandomAccessSource source) throws IOException {
        return open(source, Limits.STRICT, true);
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
     * Opens a source, taking ownership of it or not, with the {@link ReadOptions#DEFAULT} read options.
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
        return open(source, limits, closeSource, ReadOptions.DEFAULT);
    }

    /**
     * Opens a source, taking ownership of it or not.
     *
     * @param source      the source
     * @param limits      the policy for the header and for {@link #readFloat32}
     * @param closeSource {@code true} to close the source in {@link #close()} (and at once if its header breaks a
     *                    rule); {@code false} to leave a source the caller owns open in every case
     * @param options     how tensor bytes are fetched from a remote source (parallel parts, slice coalescing)
     * @return the open file
     * @throws IOException if the source cannot be read or its header breaks a rule
     */
    public static SafetensorsFile open(RandomAccessSource source, Limits limits, boolean closeSource,
                                       ReadOptions options) throws IOException {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(options, "options");
        try {
            PrefixCapture capture = new PrefixCapture(source, limits.prefetchBytes());
            SafetensorsHeader header = Safetensors.readHeader(capture, limits);
            MappedWindows mapping = source instanceof FileSource f ? new MappedWindows(f) : null;
            TensorReader reader = new TensorReader(source, header.payloadOffset(),
                    capture.bytesFrom(header.payloadOffset()), mapping, options);
            return new SafetensorsFile(source, header, limits, closeSource, reader);
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

    /**
     * A file over a source whose header was already read and validated through that same source (a checkpoint's
     * shard): no request is made here. Takes ownership of the source.
     *
     * @param source  the source the header came from
     * @param header  its validated header
     * @param limits  the policy the header passed, for {@link #readFloat32}
     * @param options how tensor bytes are fetched
     * @param prefix  payload bytes read with the header, from the payload's first byte (possibly none)
     * @return the open file
     * @throws IOException if a local file's mapping cannot be prepared
     */
    static SafetensorsFile ofRead(RandomAccessSource source, SafetensorsHeader header, Limits limits,
                                  ReadOptions options, ByteBuffer prefix) throws IOException {
        MappedWindows mapping = source instanceof FileSource f ? new MappedWindows(f) : null;
        TensorReader reader = new TensorReader(source, header.payloadOffset(), prefix, mapping, options);
        return new SafetensorsFile(source, header, limits, true, reader);
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
     * @throws TensorAccessException  {@link ErrorCode#TENSOR_NOT_FOUND} for an unknown name
     * @throws InterruptedIOException if the thread is interrupted; some bytes may have been written
     * @throws IOException            if the source or the channel fails, or this file is closed
     */
    public long copyTensorTo(String name, WritableByteChannel out) throws IOException {
        Objects.requireNonNull(out, "out");
        TensorInfo t = tensor(name);
        // a direct block lets a file source read straight into it, without the JDK's hidden copy
        ByteBuffer block = ByteBuffer.allocateDirect((int) Math.min(RangeStreamer.BLOCK_BYTES, t.byteLength()));
        reader().stream(t, block, b -> {
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
     * @throws TensorAccessException  {@link ErrorCode#TENSOR_NOT_FOUND} for an unknown name
     * @throws InterruptedIOException if the thread is interrupted; some bytes may have been written
     * @throws IOException            if the source or the stream fails, or this file is closed
     */
    public long copyTensorTo(String name, OutputStream out) throws IOException {
        Objects.requireNonNull(out, "out");
        TensorInfo t = tensor(name);
        ByteBuffer block = ByteBuffer.allocate((int) Math.min(RangeStreamer.BLOCK_BYTES, t.byteLength()));
        reader().stream(t, block, b -> out.write(b.array(), b.arrayOffset() + b.position(), b.remaining()));
        return t.byteLength();
    }

    /**
     * Reads a tensor's bytes, exactly as stored, into a new heap buffer.
     *
     * @param name the tensor
     * @return a buffer positioned at 0 whose limit is the tensor's byte length, in {@link ByteOrder#LITTLE_ENDIAN}
     *         order, ready for {@code getFloat}, {@code getLong}, ...
     * @throws TensorAccessException  {@link ErrorCode#TENSOR_NOT_FOUND} for an unknown name;
     *                                {@link ErrorCode#TOO_MANY_ELEMENTS} for a tensor of more than
     *                                {@code Integer.MAX_VALUE - 8} bytes, which no buffer holds (checked before
     *                                allocating; use {@link #copyTensorTo} or {@link #slice} for those)
     * @throws InterruptedIOException if the thread is interrupted
     * @throws IOException            if the source fails, or this file is closed
     */
    public ByteBuffer readBytes(String name) throws IOException {
        TensorInfo t = tensor(name);
        if (t.byteLength() > MAX_ARRAY) {
            throw new TensorAccessException(ErrorCode.TOO_MANY_ELEMENTS, source.name(), t.name(), "the tensor has "
                    + t.byteLength() + " bytes, more than a ByteBuffer holds (" + MAX_ARRAY
                    + "); copy it with copyTensorTo instead");
        }
        ByteBuffer result = ByteBuffer.allocate((int) t.byteLength()).order(ByteOrder.LITTLE_ENDIAN);
        read(t, SlicePlan.whole(t), PieceSink.bytes(result));
        return result;
    }

    /**
     * Reads a tensor's bytes, exactly as stored, into the caller's buffer (heap or direct), so that memory can be
     * reused. The bytes are written from the buffer's position, which advances past them; the buffer's byte order is
     * left as it is (the bytes are little-endian).
     *
     * @param name the tensor
     * @param dst  where the bytes go; must have room for all of them
     * @return the number of bytes written, the tensor's byte length
     * @throws TensorAccessException   {@link ErrorCode#TENSOR_NOT_FOUND} for an unknown name;
     *                                 {@link ErrorCode#TOO_MANY_ELEMENTS} if {@code dst} has less room than the
     *                                 tensor's byte length (checked before reading; nothing is written)
     * @throws ReadOnlyBufferException if {@code dst} is read-only
     * @throws InterruptedIOException  if the thread is interrupted; some bytes may have been written
     * @throws IOException             if the source fails, or this file is closed
     */
    public long readBytes(String name, ByteBuffer dst) throws IOException {
        Objects.requireNonNull(dst, "dst");
        TensorInfo t = tensor(name);
        checkRoom(t, t.byteLength(), dst.remaining(), "bytes");
        if (dst.isReadOnly()) {
            throw new ReadOnlyBufferException();
        }
        read(t, SlicePlan.whole(t), PieceSink.bytes(dst));
        dst.position(dst.position() + (int) t.byteLength());
        return t.byteLength();
    }

    /**
     * Reads a float-readable tensor into a new {@code float[]}, widening exactly: every value, subnormals,
     * infinities, -0.0 and NaN signs and payloads included, stays what it is (rule 23). Widened are F32, F16 and
     * BF16, and, under a policy that accepts them (such as {@link Limits#OFFICIAL}), F8_E4M3, F8_E5M2, F8_E8M0,
     * F8_E4M3FNUZ and F8_E5M2FNUZ. Elements are in the file's row-major order.
     *
     * @param name the tensor
     * @return the elements, as many as {@link TensorInfo#elementCount()}
     * @throws TensorAccessException     {@link ErrorCode#TENSOR_NOT_FOUND} for an unknown name;
     *                                   {@link ErrorCode#TOO_MANY_ELEMENTS} for more elements than
     *                                   {@link Limits#maxFloat32Elements()}, checked before allocating
     * @throws UnsupportedDtypeException {@link ErrorCode#NOT_FLOAT_READABLE} for any other dtype
     * @throws InterruptedIOException    if the thread is interrupted
     * @throws IOException               if the source fails, or this file is closed
     */
    public float[] readFloat32(String name) throws IOException {
        TensorInfo t = tensor(name);
        checkFloatReadable(t);
        checkFloatLimit(t, t.elementCount());
        float[] result = new float[(int) t.elementCount()];
        read(t, SlicePlan.whole(t), PieceSink.floats(t.dtype(), FloatBuffer.wrap(result)));
        return result;
    }

    /**
     * Reads a float-readable tensor into the caller's buffer (heap or direct), widening exactly as
     * {@link #readFloat32(String)} does. The elements are written from the buffer's position, which advances past
     * them. {@link Limits#maxFloat32Elements()} does not apply: the caller's buffer is the bound.
     *
     * @param name the tensor
     * @param dst  where the elements go; must have room for all of them
     * @return the number of elements written
     * @throws TensorAccessException     {@link ErrorCode#TENSOR_NOT_FOUND} for an unknown name;
     *                                   {@link ErrorCode#TOO_MANY_ELEMENTS} if {@code dst} has fewer than
     *                                   {@link TensorInfo#elementCount()} floats of room (checked before reading;
     *                                   nothing is written)
     * @throws ReadOnlyBufferException   if {@code dst} is read-only
     * @throws UnsupportedDtypeException {@link ErrorCode#NOT_FLOAT_READABLE} for any other dtype
     * @throws InterruptedIOException    if the thread is interrupted; some elements may have been written
     * @throws IOException               if the source fails, or this file is closed
     */
    public int readFloat32(String name, FloatBuffer dst) throws IOException {
        Objects.requireNonNull(dst, "dst");
        TensorInfo t = tensor(name);
        checkFloatReadable(t);
        checkRoom(t, t.elementCount(), dst.remaining(), "elements");
        if (dst.isReadOnly()) {
            throw new ReadOnlyBufferException();
        }
        read(t, SlicePlan.whole(t), PieceSink.floats(t.dtype(), dst));
        dst.position(dst.position() + (int) t.elementCount());
        return (int) t.elementCount();
    }

    /**
     * Plans a slice of a tensor, as {@code get_slice(name)[a:b, :, c:d]} does in the official crate; nothing is read
     * until one of the slice's read methods is called.
     *
     * @param name   the tensor
     * @param slices one per leading dimension; dimensions without one are taken whole, so no slices at all is the
     *               whole tensor
     * @return the planned slice
     * @throws TensorAccessException {@link ErrorCode#TENSOR_NOT_FOUND} for an unknown name;
     *                               {@link ErrorCode#INVALID_SLICE} for more slices than dimensions, a bound outside
     *                               its dimension, a step below 1, or a packed sub-byte dtype
     * @throws IOException           if this file is closed
     */
    public TensorSlice slice(String name, Slice... slices) throws IOException {
        Objects.requireNonNull(slices, "slices");
        TensorInfo t = tensor(name);
        return new TensorSlice(this, t, SlicePlan.of(source.name(), t, slices));
    }

    /**
     * @return whether {@link #map} is available: the source is a local file ({@link FileSource})
     */
    public boolean isMappable() {
        return reader.mappable();
    }

    /**
     * A read-only, little-endian view of a tensor's bytes over a memory mapping of the local file: no copy, and the
     * operating system's page cache is the only memory used. The file is mapped in a few shared windows, made on first
     * use. The buffer stays readable after {@link #close()}: its mapping is released when it is garbage collected,
     * never explicitly, so it can never point at unmapped memory. A file found shorter than when it was opened fails
     * with {@link ErrorCode#TRUNCATED}; if another process truncates it later, reading the missing part of a view
     * raises the JDK's {@link InternalError}, as it does for any mapping.
     *
     * @param name the tensor
     * @return a buffer positioned at 0 whose limit is the tensor's byte length
     * @throws TensorAccessException  {@link ErrorCode#TENSOR_NOT_FOUND} for an unknown name;
     *                                {@link ErrorCode#TOO_MANY_ELEMENTS} for a tensor of more than
     *                                {@code Integer.MAX_VALUE} bytes, which no buffer addresses (read such a tensor in
     *                                pieces with {@link #slice}, or copy it with {@link #copyTensorTo})
     * @throws dev.safetensors.StorageException {@link ErrorCode#NOT_A_FILE} if the source is not a local file (see
     *                                {@link #isMappable()}); {@link ErrorCode#TRUNCATED} if the file is now shorter
     *                                than when it was opened
     * @throws InterruptedIOException if the thread is interrupted
     * @throws IOException            if mapping fails, or this file is closed
     */
    public ByteBuffer map(String name) throws IOException {
        TensorInfo t = tensor(name);
        if (!reader.mappable()) {
            throw new StorageException(ErrorCode.NOT_A_FILE, source.name(), "only a local file can be mapped;"
                    + " read the tensor with readBytes or slice instead");
        }
        if (t.byteLength() > Integer.MAX_VALUE) {
            throw new TensorAccessException(ErrorCode.TOO_MANY_ELEMENTS, source.name(), t.name(), "the tensor has "
                    + t.byteLength() + " bytes, more than one ByteBuffer addresses; map slices of it or copy it"
                    + " with copyTensorTo");
        }
        return reader().map(t);
    }

    /**
     * Closes the source if this file owns it. Reads in progress on other threads may fail; later reads fail with an
     * {@link IOException}. Buffers from {@link #map} stay readable until they are garbage collected. Idempotent.
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

    String sourceName() {
        return source.name();
    }

    /**
     * Reads through the reader, turning the JVM's report of a fault in a mapped read (a file truncated by another
     * process during the read) into a checked {@link ErrorCode#TRUNCATED}.
     */
    void read(TensorInfo t, SlicePlan plan, PieceSink sink) throws IOException {
        try {
            reader().read(t, plan, sink);
        } catch (InternalError e) {
            throw TensorReader.truncated(source.name(), e);
        }
    }

    /** @return the reader, once this file is known to be open */
    TensorReader reader() throws IOException {
        ensureOpen();
        return reader;
    }

    void checkRoom(TensorInfo t, long needed, int room, String what) throws TensorAccessException {
        if (room < needed) {
            throw new TensorAccessException(ErrorCode.TOO_MANY_ELEMENTS, source.name(), t.name(), "needs " + needed
                    + " " + what + ", the buffer has room for " + room);
        }
    }

    void checkFloatReadable(TensorInfo t) throws UnsupportedDtypeException {
        if (!Float32Widening.supports(t.dtype())) {
            throw new UnsupportedDtypeException(ErrorCode.NOT_FLOAT_READABLE, source.name(), "dtype " + t.dtype()
                    + " cannot be read as float32; readable are " + Float32Widening.supportedNames(), t.name(), -1);
        }
    }

    void checkFloatLimit(TensorInfo t, long elements) throws TensorAccessException {
        if (elements > limits.maxFloat32Elements()) {
            throw new TensorAccessException(ErrorCode.TOO_MANY_ELEMENTS, source.name(), t.name(), "has " + elements
                    + " elements, more than the limit of " + limits.maxFloat32Elements() + " for readFloat32");
        }
    }

    /**
     * A tensor's bytes as one streamed ranged read of the source (one request for a remote source; the read options'
     * parallel parts do not apply), for callers that pull bytes rather than have them pushed.
     *
     * @param name the tensor
     * @return a channel over exactly the tensor's bytes; the caller closes it
     * @throws TensorAccessException {@link ErrorCode#TENSOR_NOT_FOUND} for an unknown name
     * @throws IOException           if the range cannot be opened, or this file is closed
     */
    public ReadableByteChannel openTensor(String name) throws IOException {
        TensorInfo t = tensor(name);
        return source.openRange(header.payloadOffset() + t.begin(), t.byteLength());
    }

    private TensorInfo tensor(String name) throws IOException {
        Objects.requireNonNull(name, "name");
        ensureOpen();
        return header.tensor(name).orElseThrow(() -> new TensorAccessException(ErrorCode.TENSOR_NOT_FOUND,
                source.name(), name, "no tensor of that name among the " + header.tensors().size()
                + " in the header"));
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new StorageException(ErrorCode.IO_ERROR, source.name(), "the SafetensorsFile is closed");
        }
    }
}
