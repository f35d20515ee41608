package dev.safetensors.spark;

import dev.safetensors.RandomAccessSource;
import dev.safetensors.TensorInfo;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One tensor's bytes, streamed in one ranged request and handed out in chunks of at most {@code chunkBytes}, with an
 * optional SHA-256 over all of them. Only one chunk is in memory at a time.
 */
final class TensorBytes implements Closeable {
    private static final int BLOCK = 64 * 1024;
    private final ReadableByteChannel channel;
    private final MessageDigest digest;
    private final int chunkBytes;
    private final String name;
    private long remaining;

    TensorBytes(RandomAccessSource source, long payloadOffset, TensorInfo tensor, int chunkBytes, boolean sha256)
            throws IOException {
        this.remaining = tensor.byteLength();
        this.channel = source.openRange(payloadOffset + tensor.begin(), remaining);
        this.chunkBytes = chunkBytes;
        this.name = source.name() + ": tensor \"" + tensor.name() + "\"";
        this.digest = sha256 ? sha256() : null;
    }

    boolean hasMore() {
        return remaining > 0;
    }

    /** @return the next chunk: at most {@code chunkBytes} bytes, never empty unless the tensor is */
    byte[] nextChunk() throws IOException {
        byte[] chunk = new byte[(int) Math.min(chunkBytes, remaining)];
        fill(ByteBuffer.wrap(chunk));
        return chunk;
    }

    /** Reads the rest through one reused block, for the digest alone. */
    void skipRest() throws IOException {
        ByteBuffer block = ByteBuffer.allocate((int) Math.min(BLOCK, Math.max(1, remaining)));
        while (remaining > 0) {
            block.clear().limit((int) Math.min(block.capacity(), remaining));
            fill(block);
        }
    }

    /** @return the lower-case hex SHA-256 of all the tensor's bytes; call once all were read */
    String sha256Hex() {
        return HexFormat.of().formatHex(digest.digest());
    }

    private void fill(ByteBuffer dst) throws IOException {
        int start = dst.position();
        while (dst.hasRemaining()) {
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedIOException(name + ": interrupted");
            }
            if (channel.read(dst) < 0) {
                throw new EOFException(name + ": the object ended " + dst.remaining() + " bytes early");
            }
        }
        remaining -= dst.position() - start;
        if (digest != null) {
            digest.update(dst.array(), dst.arrayOffset() + start, dst.position() - start);
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
