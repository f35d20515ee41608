package dev.safetensors.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * The SHA-256 of the bytes that pass through: read from a channel (a tensor as it leaves its source) or written to
 * nothing (a tensor read back from the file it landed in). Progress is told about every transfer; the digest is
 * handed over when the channel is closed after exactly the expected number of bytes.
 */
final class DigestingChannel implements ReadableByteChannel, WritableByteChannel {
    private final ReadableByteChannel in;
    private final long expected;
    private final LongConsumer progress;
    private final Consumer<String> done;
    private final MessageDigest digest = newSha256();
    private long count;
    private boolean open = true;

    private DigestingChannel(ReadableByteChannel in, long expected, LongConsumer progress, Consumer<String> done) {
        this.in = in;
        this.expected = expected;
        this.progress = progress;
        this.done = done;
    }

    /**
     * @param in       the channel read through
     * @param expected the number of bytes that makes a complete read
     * @param progress told about every transfer
     * @param done     given the hex digest when the channel is closed after exactly {@code expected} bytes
     * @return a channel that reads {@code in}
     */
    static DigestingChannel reading(ReadableByteChannel in, long expected, LongConsumer progress,
                                    Consumer<String> done) {
        return new DigestingChannel(in, expected, progress, done);
    }

    /**
     * @param expected the number of bytes that makes a complete write
     * @param progress told about every transfer
     * @param done     given the hex digest when the channel is closed after exactly {@code expected} bytes
     * @return a channel that hashes and discards what is written to it
     */
    static DigestingChannel sink(long expected, LongConsumer progress, Consumer<String> done) {
        return new DigestingChannel(null, expected, progress, done);
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        int start = dst.position();
        int n = in.read(dst);
        if (n > 0) {
            digest.update(dst.duplicate().position(start).limit(start + n));
            count += n;
            progress.accept(n);
        }
        return n;
    }

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

    @Override
    public void close() throws IOException {
        if (!open) {
            return;
        }
        open = false;
        if (count == expected) {
            done.accept(HexFormat.of().formatHex(digest.digest()));
        }
        if (in != null) {
            in.close();
        }
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime provides SHA-256", e);
        }
    }
}
