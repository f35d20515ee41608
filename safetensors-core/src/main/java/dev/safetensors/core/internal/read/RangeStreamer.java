package dev.safetensors.core.internal.read;

import dev.safetensors.RandomAccessSource;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * Streams one byte range of a source in blocks of {@link #BLOCK_BYTES} through a single
 * {@link RandomAccessSource#openRange}, so a remote source makes one request however large the range is (rules 22
 * and 24). The thread's interrupt flag is checked before every block: a set flag stops the stream with an
 * {@link InterruptedIOException} and stays set for the caller to see.
 */
public final class RangeStreamer {
    /** The block size of every tensor read: large enough for throughput, small enough to react to interrupts. */
    public static final int BLOCK_BYTES = 64 * 1024;

    private RangeStreamer() {
    }

    /**
     * Streams {@code length} bytes from {@code position} through {@code block} into {@code sink}. Each block is
     * filled completely before it is passed on, except the last.
     *
     * @param block a buffer whose capacity is a multiple of the element size; its contents are overwritten
     * @throws InterruptedIOException if the thread is interrupted; {@code bytesTransferred} says how far it got
     * @throws EOFException           if the source ends before the range does
     */
    public static void stream(RandomAccessSource source, long position, long length, ByteBuffer block, BlockSink sink)
            throws IOException {
        if (length == 0) {
            return; // an empty tensor costs no request
        }
        long done = 0;
        try (ReadableByteChannel in = source.openRange(position, length)) {
            while (done < length) {
                if (Thread.currentThread().isInterrupted()) {
                    throw interrupted(source, done, length, null);
                }
                block.clear();
                block.limit((int) Math.min(block.capacity(), length - done));
                fill(source, in, block, position + done);
                block.flip();
                int n = block.remaining();
                sink.accept(block);
                done += n;
            }
        } catch (InterruptedIOException e) {
            // a source that was interrupted inside a read reports it its own way; say how far the stream got
            throw e.bytesTransferred == 0 && done > 0 ? interrupted(source, done, length, e) : e;
        }
    }

    private static void fill(RandomAccessSource source, ReadableByteChannel in, ByteBuffer block, long at)
            throws IOException {
        while (block.hasRemaining()) {
            if (in.read(block) < 0) {
                throw new EOFException(source.name() + ": the object ends at byte " + (at + block.position())
                        + ", inside a tensor");
            }
        }
    }

    private static InterruptedIOException interrupted(RandomAccessSource source, long done, long length,
                                                       Throwable cause) {
        InterruptedIOException e = new InterruptedIOException(source.name() + ": tensor read interrupted after "
                + done + " of " + length + " bytes");
        e.bytesTransferred = (int) Math.min(Integer.MAX_VALUE, done);
        e.initCause(cause);
        return e;
    }
}
