package dev.safetensors.spi;

import dev.safetensors.RangeNotHonouredException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ReadableByteChannel;

/**
 * Streams the body of a verified ranged response and takes exactly the promised number of bytes, never more.
 *
 * <ul>
 *   <li>Reads at most {@code expected} bytes from the body; once they have arrived it looks for one more byte,
 *       and if one comes the server sent more than it declared: {@link RangeNotHonouredException}.</li>
 *   <li>A body that ends early is a {@link RangeNotHonouredException} too (some clients report a premature close
 *       as a normal end of stream, so bytes are counted, not trusted).</li>
 *   <li>Closing before the body was consumed exactly, or after any failure, runs the {@code abort} action
 *       instead of closing the stream normally, so that no client drains the remaining body.</li>
 * </ul>
 *
 * <p>Received bytes are added to the given {@link RequestCounter}. Meant for one thread.
 */
public final class VerifiedRangeChannel implements ReadableByteChannel {
    private final String source;
    private final InputStream body;
    private final long expected;
    private final Runnable abort;
    private final RequestCounter counter;
    private final byte[] chunk;
    private long received;
    private boolean finished;
    private boolean failed;
    private boolean open = true;

    /**
     * @param source   the source name, for messages
     * @param body     the response body
     * @param expected the exact number of bytes the verified range promises
     * @param abort    aborts the underlying request without draining it
     * @param counter  counts received bytes
     */
    public VerifiedRangeChannel(String source, InputStream body, long expected, Runnable abort,
                                RequestCounter counter) {
        this.source = source;
        this.body = body;
        this.expected = expected;
        this.abort = abort;
        this.counter = counter;
        this.chunk = new byte[(int) Math.min(64 * 1024, Math.max(1, expected))];
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (!open) {
            throw new ClosedChannelException();
        }
        if (received == expected) {
            finishOnce();
            return -1;
        }
        if (!dst.hasRemaining()) {
            return 0;
        }
        int want = (int) Math.min(Math.min(dst.remaining(), chunk.length), expected - received);
        int n;
        try {
            n = body.read(chunk, 0, want);
        } catch (IOException e) {
            failed = true;
            throw e;
        }
        if (n < 0) {
            failed = true;
            throw new RangeNotHonouredException(source, "the body ended after " + received + " of " + expected
                    + " promised bytes");
        }
        dst.put(chunk, 0, n);
        received += n;
        counter.bytes(n);
        return n;
    }

    private void finishOnce() throws IOException {
        if (finished) {
            return;
        }
        finished = true;
        int extra;
        try {
            extra = body.read();
        } catch (IOException e) {
            failed = true;
            throw e;
        }
        if (extra >= 0) {
            failed = true;
            throw new RangeNotHonouredException(source, "the body holds more than the " + expected
                    + " bytes its Content-Range promised");
        }
    }

    /** @return the number of body bytes received so far */
    public long received() {
        return received;
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
        if (failed || !finished) {
            abort.run();
        }
        body.close();
    }
}
