package dev.safetensors.memory;

import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.StorageException;
import dev.safetensors.TensorAccessException;
import dev.safetensors.TensorInfo;
import dev.safetensors.core.Safetensors;

import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;

/**
 * A local safetensors file whose tensors are read as {@link MemorySegment}s: read-only views over a memory mapping, of
 * any size (a 128,256 x 8,192 BF16 embedding is 2.1 GB, past the 2 GiB a {@link java.nio.ByteBuffer} addresses), with
 * no copy. Elements are little-endian: read them with {@link LittleEndian}'s layouts, or widen them with
 * {@link #readFloat32} and {@link SegmentWidening}.
 *
 * <pre>{@code
 * try (SegmentFile file = SegmentFile.open(Path.of("model.safetensors"))) {
 *     MemorySegment embed = file.segment("model.embed_tokens.weight");   // lives until file.close()
 *     short lastBits = embed.getAtIndex(LittleEndian.SHORT, embed.byteSize() / 2 - 1);
 *     try (Arena arena = Arena.ofConfined()) {
 *         MemorySegment mine = file.segment("lm_head.weight", arena);    // lives until arena.close()
 *     }
 * }
 * }</pre>
 *
 * <p>Lifetimes are explicit, never left to the garbage collector:
 * <ul>
 *   <li>{@link #segment(String)} maps the file once, in an arena this object owns, and slices it: the segments are
 *       valid, from any thread, until {@link #close()}; then any access throws {@link IllegalStateException} instead of
 *       reaching unmapped memory.</li>
 *   <li>{@link #segment(String, Arena)} maps the tensor alone in the caller's arena: valid until the caller closes
 *       it, whether or not this file is closed, and accessible from the threads that arena allows.</li>
 * </ul>
 *
 * <p>The header is validated with {@code dev.safetensors.core}'s rules, limits and codes, read from the same open file
 * that is mapped. A file made shorter by another process while mapped makes the JVM raise {@link InternalError} on
 * access, as for any mapping; {@link #segment} checks the size before it maps. Thread-safe.
 */
public final class SegmentFile implements Closeable {
    private final String name;
    private final FileChannel channel;
    private final SafetensorsHeader header;
    private final Object lock = new Object();
    private Arena own;
    private MemorySegment whole;
    private boolean closed;

    private SegmentFile(String name, FileChannel channel, SafetensorsHeader header) {
        this.name = name;
        this.channel = channel;
        this.header = header;
    }

    /**
     * Opens a local file with the strict limits ({@link Limits#STRICT}).
     *
     * @param path the file
     * @return the open file; close it when done
     * @throws dev.safetensors.SafetensorsException if the header breaks a rule, with its {@link ErrorCode}
     * @throws IOException                          if the file cannot be read ({@code NoSuchFileException},
     *                                              {@link StorageException} {@link ErrorCode#NOT_A_FILE} for a folder,
     *                                              a FIFO or a device...)
     */
    public static SegmentFile open(Path path) throws IOException {
        return open(path, Limits.STRICT);
    }

    /**
     * @param path   the file
     * @param limits the validation policy, as for {@link dev.safetensors.core.SafetensorsFile#open(Path, Limits)}
     * @return the open file; close it when done
     * @throws dev.safetensors.SafetensorsException if the header breaks a rule of {@code limits}, with its
     *                                              {@link ErrorCode}
     * @throws IOException                          if the file cannot be read ({@code NoSuchFileException},
     *                                              {@link StorageException} {@link ErrorCode#NOT_A_FILE} for a folder,
     *                                              a FIFO or a device...)
     */
    public static SegmentFile open(Path path, Limits limits) throws IOException {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(limits, "limits");
        String name = path.toString();
        // a FIFO or a device would block or never end: refuse it before opening
        BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
        if (!a.isRegularFile()) {
            throw new StorageException(ErrorCode.NOT_A_FILE, name, a.isDirectory() ? "is a directory, not a file"
                    : "is not a regular file (a FIFO, socket or device)");
        }
        FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
        try {
            SafetensorsHeader header = Safetensors.readHeader(new ChannelSource(channel, name, channel.size()),
                    limits);
            return new SegmentFile(name, channel, header);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** @return the validated header: tensors in data order, metadata, sizes */
    public SafetensorsHeader header() {
        return header;
    }

    /**
     * A read-only view of a tensor's bytes, valid until {@link #close()}. The file is mapped whole on the first call,
     * in an arena this object owns, and every later call slices that mapping.
     *
     * @param name the tensor's name
     * @return exactly the tensor's bytes, read-only, little-endian elements
     * @throws TensorAccessException {@link ErrorCode#TENSOR_NOT_FOUND} if the header has no such tensor
     * @throws StorageException      {@link ErrorCode#TRUNCATED} if the file is now shorter than its header says;
     *                               {@link ErrorCode#IO_ERROR} if this file is closed
     * @throws IOException           if mapping fails
     */
    public MemorySegment segment(String name) throws IOException {
        TensorInfo t = tensor(name);
        synchronized (lock) {
            ensureOpen();
            if (whole == null) {
                checkNotTruncated(header.fileSize());
                Arena arena = Arena.ofShared();
                try {
                    whole = channel.map(FileChannel.MapMode.READ_ONLY, 0, header.fileSize(), arena);
                } catch (IOException | RuntimeException e) {
                    arena.close();
                    throw e;
                }
                own = arena;
            }
            return whole.asSlice(header.payloadOffset() + t.begin(), t.end() - t.begin());
        }
    }

    /**
     * A read-only view of a tensor's bytes in the caller's arena: the tensor alone is mapped, and stays valid until
     * {@code arena} is closed, whether or not this file is closed first.
     *
     * @param name  the tensor's name
     * @param arena the arena that owns the mapping (confined arenas: call from their thread)
     * @return exactly the tensor's bytes, read-only, little-endian elements
     * @throws TensorAccessException {@link ErrorCode#TENSOR_NOT_FOUND} if the header has no such tensor
     * @throws StorageException      {@link ErrorCode#TRUNCATED} if the file is now shorter than its header says;
     *                               {@link ErrorCode#IO_ERROR} if this file is closed
     * @throws IOException           if mapping fails
     */
    public MemorySegment segment(String name, Arena arena) throws IOException {
        Objects.requireNonNull(arena, "arena");
        TensorInfo t = tensor(name);
        long length = t.end() - t.begin();
        synchronized (lock) {
            ensureOpen();
            if (length == 0) {
                return arena.allocate(0).asReadOnly();
            }
            checkNotTruncated(header.payloadOffset() + t.end());
            return channel.map(FileChannel.MapMode.READ_ONLY, header.payloadOffset() + t.begin(), length, arena);
        }
    }

    /**
     * Widens {@code count} elements of a tensor, from element {@code firstElement}, into {@code dst} from
     * {@code offset}, through the file's own mapping ({@link #segment(String)}), as
     * {@link dev.safetensors.core.SafetensorsFile#readFloat32(String)} widens.
     *
     * @param name         the tensor's name
     * @param firstElement the index of the first element, from 0 (any {@code long}: the tensor may be of any size)
     * @param dst          where the floats go
     * @param offset       the index in {@code dst} of the first float
     * @param count        how many elements
     * @return {@code count}
     * @throws dev.safetensors.UnsupportedDtypeException {@link ErrorCode#NOT_FLOAT_READABLE} for a dtype that is not
     *                                                   widened
     * @throws TensorAccessException                     {@link ErrorCode#TENSOR_NOT_FOUND} if there is no such
     *                                                   tensor
     * @throws IndexOutOfBoundsException                 if the elements are not all in the tensor, or {@code dst}
     *                                                   has no room for them
     * @throws IOException                               if mapping fails, or this file is closed
     */
    public int readFloat32(String name, long firstElement, float[] dst, int offset, int count) throws IOException {
        TensorInfo t = tensor(name);
        return SegmentWidening.readFloat32(segment(name), t.dtype(), firstElement, dst, offset, count);
    }

    /**
     * Closes the file and the arena of {@link #segment(String)}'s views: any later access to them throws
     * {@link IllegalStateException}. Segments mapped in a caller's arena stay valid. Idempotent.
     *
     * @throws StorageException {@link ErrorCode#IO_ERROR} if a view is in use by an operation that holds it (an
     *                          asynchronous I/O on its buffer), which keeps its arena open
     * @throws IOException      if closing the channel fails
     */
    @Override
    public void close() throws IOException {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            try {
                if (own != null) {
                    own.close();
                }
            } catch (IllegalStateException e) {
                throw new StorageException(ErrorCode.IO_ERROR, name, "a segment is still in use: " + e.getMessage(),
                        e);
            } finally {
                channel.close();
            }
        }
    }

    @Override
    public String toString() {
        return "SegmentFile[" + header + "]";
    }

    private TensorInfo tensor(String tensor) throws TensorAccessException {
        Objects.requireNonNull(tensor, "name");
        return header.tensor(tensor).orElseThrow(() -> new TensorAccessException(ErrorCode.TENSOR_NOT_FOUND, name,
                tensor, "no tensor of that name among the " + header.tensors().size() + " in the header"));
    }

    private void ensureOpen() throws StorageException {
        if (closed) {
            throw new StorageException(ErrorCode.IO_ERROR, name, "the SegmentFile is closed");
        }
    }

    private void checkNotTruncated(long needed) throws IOException {
        long now = channel.size();
        if (now < needed) {
            throw new StorageException(ErrorCode.TRUNCATED, name, "the file is " + now + " bytes, shorter than the "
                    + needed + " its header needs: it shrank since it was opened");
        }
    }
}
