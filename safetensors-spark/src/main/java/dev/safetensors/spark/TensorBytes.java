package dev.safetensors.spark;

import dev.safetensors.core.Sha256Channel;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.TensorInfo;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * One tensor's bytes, streamed in one ranged request and handed out in chunks of at most {@code chunkBytes}, with an
 * optional SHA-256 over all of them (the library's {@link Sha256Channel}). Only one chunk is in memory at a time.
 */
final class TensorBytes implements Closeable {
    private final ReadableByteChannel channel;
    private final Sha256Channel digest;
    private String hex;
    private final int chunkBytes;
    private final String name;
    private long remaining;

    TensorBytes(RandomAccessSource source, long payloadOffset, TensorInfo tensor, int chunkBytes, boolean sha256)
            throws IOException {
        this.remaining = tensor.byteLength();
        ReadableByteChannel range = source.openRange(payloadOffset + tensor.begin(), remaining);
        this.digest = sha256 ? Sha256Channel.reading(range, remaining, n -> { }, d -> hex = d) : null;
        this.channel = sha256 ? digest : range;
        this.chunkBytes = chunkBytes;
        this.name = source.name() + ": tensor \"" + tensor.name() + "\"";
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

    /**
     * @return the lower-case hex SHA-256 of all the tensor's bytes; call once all were read
     * @throws IOException if closing the range fails
     */
    String sha256Hex() throws IOException {
        digest.close();
        return hex;
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
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
