package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.Sha256;
import dev.safetensors.StorageException;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * The SHA-256 of the bytes that pass through, the one digest of tensors and files for every module: read from a
 * channel (a tensor as it leaves its source, {@link #reading}), or written to nothing (a tensor copied out of a
 * file, {@link #sink}); {@link #sha256(RandomAccessSource, long, long, LongConsumer)} digests a range in one streamed
 * request. Progress is told about every transfer; the digest is handed over when the channel is closed after exactly
 * the expected number of bytes. Not thread-safe.
 */
public final class Sha256Channel implements ReadableByteChannel, WritableByteChannel {
    private static final int BLOCK = 1 << 20;

    private final ReadableByteChannel in;
    private final long expected;
    private final LongConsumer progress;
    private final Consumer<String> done;
    private final MessageDigest digest = Sha256.newDigest();
    private long count;
    private boolean open = true;

    private Sha256Channel(ReadableByteChannel in, long expected, LongConsumer progress, Consumer<String> done) {
        this.in = in;
        this.expected = expected;
        this.progress = Objects.requireNonNull(progress, "progress");
        this.done = Objects.requireNonNull(done, "done");
    }

    /**
     * @param in       the channel read through; closed with this one
     * @param expected the number of bytes that makes a complete read
     * @param progress told about every transfer
     * @param done     given the lower-case hex digest when the channel is closed after exactly {@code expected} bytes
     * @return a channel that reads {@code in}
     */
    public static Sha256Channel reading(ReadableByteChannel in, long expected, LongConsumer progress,
                                        Consumer<String> done) {
        return new Sha256Channel(Objects.requireNonNull(in, "in"), expected, progress, done);
    }

    /**
     * @param expected the number of bytes that makes a complete write
     * @param progress told about every transfer
     * @param done     given the lower-case hex digest when the channel is closed after exactly {@code expected} bytes
     * @return a channel that hashes and discards what is written to it
     */
    public static Sha256Channel sink(long expected, LongConsumer progress, Consumer<String> done) {
        return new Sha256Channel(null, expected, progress, done);
    }

    /**
     * Digests a range of a source in one streamed pass: one {@code openRange} (one request for a remote source), read
     * in 1 MiB blocks.
     *
     * @param source   the object
     * @param position the first byte
     * @param length   the number of bytes
     * @param progress told about every block read
     * @return the digest in lower-case hex
     * @throws IOException if the range cannot be read; an {@link EOFException} if it ends early
     */
    public static String sha256(RandomAccessSource source, long position, long length, LongConsumer progress)
            throws IOException {
        String[] hex = new String[1];
        ByteBuffer block = ByteBuffer.allocate((int) Math.min(BLOCK, Math.max(1, length)));
        try (Sha256Channel channel = reading(source.openRange(position, length), length, progress, d -> hex[0] = d)) {
            while (channel.read(block) >= 0) {
                block.clear();
            }
            if (channel.count != length) {
                throw new EOFException(source.name() + ": read " + channel.count + " bytes of " + length);
            }
        }
        return hex[0];
    }

    /** @return the bytes that passed so far */
    public long count() {
        return count;
    }

    /**
     * @param dst where to read into
     * @return the bytes read, or -1 at the end
     * @throws IOException if the channel read through fails
     */
    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (in == null) {
            throw new StorageException(ErrorCode.IO_ERROR, "sha256", "a sink is written to, not read");
        }
        int start = dst.position();
        int n = in.read(dst);
        if (n > 0) {
            digest.update(dst.duplicate().position(start).limit(start + n));
            count += n;
            progress.accept(n);
        }
        return n;
    }

    /**
     * @param src the bytes to hash
     * @return how many were consumed: all of them
     */
    @Override
    public int write(ByteBuffer src) {
        int n = src.remaining();
        digest.update(src);
        count += n;
        progress.accept(n);
        return n;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    /**
     * Hands the digest over when exactly the expected bytes passed, and closes the channel read through.
     *
     * @throws IOException if closing the channel read through fails
     */
    @Override
    public void close() throws IOException {
        boolean first = open;
        open = false;
        if (first && count == expected) {
            done.accept(HexFormat.of().formatHex(digest.digest()));
        }
        if (first && in != null) {
            in.close();
        }
    }
}
