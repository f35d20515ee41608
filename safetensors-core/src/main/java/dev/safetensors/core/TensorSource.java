package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.StorageException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Where a tensor's bytes come from when a {@link SafetensorsWriter} or {@link ShardedWriter} writes them: memory, a
 * channel, or a range of a {@link RandomAccessSource} (another file, an S3 or GCS object, an HTTP resource). Only
 * memory is held; the others are read in blocks of 1 MiB while the file is written, so a checkpoint of any size is
 * written with a small, fixed buffer, and a tensor may be larger than 2 GiB.
 *
 * <p>Every source declares its length up front: the header is built from it. While writing, the writer checks that
 * the channel delivers exactly that many bytes; a channel that ends early fails with
 * {@link ErrorCode#TRUNCATED}, one that has more with {@link ErrorCode#LENGTH_MISMATCH},
 * and the output is then abandoned (for a file: nothing is left behind).
 *
 * <p>Immutable, except that {@link #of(ReadableByteChannel, long)} can be read only once.
 */
public final class TensorSource {
    /**
     * Opens a channel over a tensor's bytes, each time the tensor is written.
     */
    @FunctionalInterface
    public interface ChannelOpener {
        /**
         * @return a new channel positioned at the tensor's first byte; the writer closes it
         * @throws IOException if it cannot be opened
         */
        ReadableByteChannel open() throws IOException;
    }

    private final String name;
    private final long length;
    private final ByteBuffer bytes;
    private final ChannelOpener opener;

    private TensorSource(String name, long length, ByteBuffer bytes, ChannelOpener opener) {
        if (length < 0) {
            throw new IllegalArgumentException("length must be >= 0, was " + length);
        }
        this.name = name;
        this.length = length;
        this.bytes = bytes;
        this.opener = opener;
    }

    /**
     * @param bytes the bytes between position and limit; kept, not copied, and not changed
     * @return a source of those bytes
     */
    public static TensorSource of(ByteBuffer bytes) {
        ByteBuffer b = Objects.requireNonNull(bytes, "bytes").slice();
        return new TensorSource("<memory>", b.remaining(), b, null);
    }

    /**
     * @param bytes the bytes; kept, not copied
     * @return a source of those bytes
     */
    public static TensorSource of(byte[] bytes) {
        return of(ByteBuffer.wrap(bytes));
    }

    /**
     * A channel that is read once: a second write of the same tensor fails with
     * {@link ErrorCode#WRITE_FAILED}. The writer closes it after reading it.
     *
     * @param channel the bytes, read from its current position
     * @param length  how many bytes it must deliver, no more and no fewer
     * @return a source of those bytes
     */
    public static TensorSource of(ReadableByteChannel channel, long length) {
        Objects.requireNonNull(channel, "channel");
        AtomicBoolean used = new AtomicBoolean();
        return new TensorSource("<channel>", length, null, () -> {
            if (used.getAndSet(true)) {
                throw new StorageException(ErrorCode.WRITE_FAILED, "<channel>",
                        "a channel source can be written once; use of(length, opener) to write it again");
            }
            return channel;
        });
    }

    /**
     * @param length how many bytes every channel the opener gives must deliver, no more and no fewer
     * @param opener called each time the tensor is written
     * @return a source of those bytes
     */
    public static TensorSource of(long length, ChannelOpener opener) {
        return new TensorSource("<channel>", length, null, Objects.requireNonNull(opener, "opener"));
    }

    /**
     * A range of a source, streamed with {@link RandomAccessSource#openRange} (one request for a remote source). The
     * source is not closed by the writer.
     *
     * @param source   where the bytes are
     * @param position the offset of the first byte
     * @param length   how many bytes
     * @return a source of those bytes
     */
    public static TensorSource range(RandomAccessSource source, long position, long length) {
        Objects.requireNonNull(source, "source");
        if (position < 0 || position > Long.MAX_VALUE - Math.max(length, 0)) {
            throw new IllegalArgumentException("invalid position " + position);
        }
        return new TensorSource(source.name(), length, null, () -> source.openRange(position, length));
    }

    /** @return the declared number of bytes */
    public long length() {
        return length;
    }

    /** @return a name for messages */
    String name() {
        return name;
    }

    /** @return a channel over the bytes; only for a source not in {@link #memory()}; the caller closes it */
    ReadableByteChannel open() throws IOException {
        return opener.open();
    }

    /** @return the bytes, if they are in memory (written directly, without a copy) */
    ByteBuffer memory() {
        return bytes == null ? null : bytes.duplicate();
    }
}
