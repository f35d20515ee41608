package dev.safetensors.spi;

import dev.safetensors.ErrorCode;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceStatistics;
import dev.safetensors.StorageException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The one implementation of the {@link RandomAccessSource} contract for an object of known size that offers
 * positional reads of its own: a local {@code FileChannel}, a Hadoop positioned stream. A subclass supplies only
 * {@link #readAt} ("read some bytes at this position") and {@link #release} ("let go of what you hold"); the rest is
 * here, the same for every such source:
 *
 * <ul>
 *   <li><b>Arguments.</b> A negative position is an {@link IllegalArgumentException}; a read after {@link #close()}
 *       is a {@link StorageException} with {@link ErrorCode#IO_ERROR}.</li>
 *   <li><b>End of object.</b> A {@code dst} without room returns 0; a read at or past {@link #size()} returns -1.
 *       Otherwise the read fills {@code dst} up to the end of the object, never past it (a file that grew is read
 *       as the size it had), with as many {@link #readAt} calls as it takes; it returns -1 if the object ends
 *       before the first byte (it shrank).</li>
 *   <li><b>Cost.</b> {@link #statistics()} counts one request per read that reaches storage (not the empty or
 *       end-of-object reads answered here) and the bytes it returned.</li>
 *   <li><b>Closing.</b> {@link #close()} is idempotent and calls {@link #release} once.</li>
 * </ul>
 *
 * <p>Thread-safe as long as {@link #readAt} is (positional reads carry no cursor).
 */
public abstract class AbstractPositionalSource implements RandomAccessSource {
    private final String name;
    private final long size;
    private final RequestCounter counter = new RequestCounter();
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param name the name for messages and logs; never a credential
     * @param size the object's size in bytes, {@code >= 0}, fixed for the life of the source
     */
    protected AbstractPositionalSource(String name, long size) {
        if (size < 0) {
            throw new IllegalArgumentException("negative size " + size);
        }
        this.name = name;
        this.size = size;
    }

    /**
     * Reads bytes at {@code position} into {@code dst}, once. The caller has checked that the source is open, that
     * {@code dst} has room, and limited it so that it ends at or before {@link #size()}.
     *
     * @param position the object offset of the first byte, {@code 0 <= position < size()}
     * @param dst      where the bytes go; its position advances by the count returned
     * @return the number of bytes read, at least 1; 0 or -1 if the object has no byte at {@code position} any more
     * @throws IOException on a storage failure, preferably one of this library's coded exceptions
     */
    protected abstract int readAt(long position, ByteBuffer dst) throws IOException;

    /**
     * Lets go of what the source holds (closes its channel or stream, or nothing when the caller owns it). Called
     * once, by the first {@link #close()}.
     *
     * @throws IOException if closing fails
     */
    protected abstract void release() throws IOException;

    @Override
    public final long size() {
        return size;
    }

    @Override
    public final int read(long position, ByteBuffer dst) throws IOException {
        if (position < 0) {
            throw new IllegalArgumentException("negative position " + position);
        }
        if (closed.get()) {
            throw new StorageException(ErrorCode.IO_ERROR, name, "the source is closed");
        }
        if (!dst.hasRemaining()) {
            return 0;
        }
        if (position >= size) {
            return -1;
        }
        int limit = dst.limit();
        dst.limit(dst.position() + (int) Math.min(dst.remaining(), size - position));
        int total = 0;
        counter.request();
        try {
            while (dst.hasRemaining()) {
                int n = readAt(position + total, dst);
                if (n <= 0) {
                    break;
                }
                total += n;
            }
        } finally {
            dst.limit(limit);
            counter.bytes(total);
        }
        return total == 0 ? -1 : total;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final SourceStatistics statistics() {
        return counter.snapshot();
    }

    @Override
    public final void close() throws IOException {
        if (closed.compareAndSet(false, true)) {
            release();
        }
    }
}
