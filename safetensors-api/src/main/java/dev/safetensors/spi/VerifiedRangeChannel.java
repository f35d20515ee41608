package dev.safetensors.spi;

import dev.safetensors.ErrorCode;
import dev.safetensors.ErrorCoded;
import dev.safetensors.RangeNotHonouredException;
import dev.safetensors.StorageException;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ReadableByteChannel;

/**
 * Streams the body of a verified ranged response and takes exactly the promised number of bytes, never more.
 *
 * <ul>
 *   <li>Reads at most {@code expected} bytes from the body. The read that completes them also confirms the end of
 *       the body (one more read that must report the end): a byte more is a {@link RangeNotHonouredException}, on
 *       every path, including a reader that stops at the exact length and never asks for -1.</li>
 *   <li>A body that ends early, or whose connection fails mid-body, is a {@link StorageException} with code
 *       {@link ErrorCode#TRUNCATED}: "the body ended after N of M promised bytes" (some clients report a premature
 *       close as a normal end of stream, so bytes are counted, not trusted). A socket read timeout is
 *       {@link ErrorCode#TIMEOUT}.</li>
 *   <li>The transfer has a deadline (see {@link RemotePolicy#deadlineFor}); a read that finds it passed fails with
 *       {@link ErrorCode#TIMEOUT}, so a server that dribbles bytes ends in bounded time.</li>
 *   <li>Closing after the end was confirmed closes the body normally, which lets the client reuse the connection.
 *       Closing earlier drains a remainder of at most {@value #DRAIN_LIMIT} bytes (cheaper than a new connection)
 *       and otherwise runs the {@code abort} action, so that no client drains a large remainder. After any failure
 *       it aborts.</li>
 * </ul>
 *
 * <p>Meant for one thread, like any channel returned by {@link dev.safetensors.RandomAccessSource#openRange}.
 */
public final class VerifiedRangeChannel implements ReadableByteChannel {
    /** The largest remainder an early close reads to keep the connection, rather than dropping it. */
    static final int DRAIN_LIMIT = 4096;

    private final String source;
    private final InputStream body;
    private final long expected;
    private final Runnable abort;
    private final RequestCounter counter;
    private final TimeSource time;
    private final long deadlineAt;
    private final long deadlineNanos;
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
     * @param time     the clock the deadline is measured with
     * @param started  when the request's first attempt started, on {@code time}'s monotonic clock
     * @param deadline how long the whole transfer may take from {@code started}, in nanoseconds
     */
    public VerifiedRangeChannel(String source, InputStream body, long expected, Runnable abort,
                                RequestCounter counter, TimeSource time, long started, long deadline) {
        this.source = source;
        this.body = body;
        this.expected = expected;
        this.abort = abort;
        this.counter = counter;
        this.time = time;
        this.deadlineAt = started + deadline;
        this.deadlineNanos = deadline;
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
        checkDeadline();
        int want = (int) Math.min(Math.min(dst.remaining(), chunk.length), expected - received);
        int n;
        try {
            n = body.read(chunk, 0, want);
        } catch (IOException e) {
            failed = true;
            throw translate(e);
        }
        if (n < 0) {
            failed = true;
            throw truncated(null);
        }
        dst.put(chunk, 0, n);
        received += n;
        counter.bytes(n);
        checkDeadline();
        if (received == expected) {
            finishOnce();
        }
        return n;
    }

    private void checkDeadline() throws StorageException {
        if (time.nanoTime() - deadlineAt > 0) {
            failed = true;
            throw new StorageException(ErrorCode.TIMEOUT, source, "the transfer took longer than its deadline of "
                    + (deadlineNanos / 1_000_000_000L) + " s: " + received + " of " + expected
                    + " bytes arrived; the server sends slower than the minimum rate");
        }
    }

    private void finishOnce() throws IOException {
        if (finished) {
            return;
        }
        int extra;
        try {
            extra = body.read();
        } catch (IOException e) {
            failed = true;
            throw translate(e);
        }
        if (extra >= 0) {
            failed = true;
            throw new RangeNotHonouredException(source, "the body holds more than the " + expected
                    + " bytes its Content-Range promised");
        }
        finished = true;
    }

    private IOException translate(IOException e) {
        if (e instanceof ErrorCoded) {
            return e;
        }
        if (e instanceof SocketTimeoutException) {
            return new StorageException(ErrorCode.TIMEOUT, source, "the read timed out after " + received + " of "
                    + expected + " promised bytes: " + SourceNames.clip(String.valueOf(e.getMessage())), e);
        }
        if (e instanceof InterruptedIOException) {
            return e;
        }
        return truncated(e);
    }

    private StorageException truncated(IOException cause) {
        return new StorageException(ErrorCode.TRUNCATED, source, "the body ended after " + received + " of "
                + expected + " promised bytes" + (cause == null ? ""
                : " (" + SourceNames.clip(cause.toString()) + ")"), cause);
    }

    /** @return the number of body bytes received so far */
    public long received() {
        return received;
    }

    /** @return whether the body was read to its confirmed end, so closing releases the connection for reuse */
    public boolean completed() {
        return finished && !failed;
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
        if (!failed && !finished && expected - received <= DRAIN_LIMIT) {
            drain();
        }
        if (failed || !finished) {
            abort.run();
        }
        body.close();
    }

    /** Reads a small remainder so the connection can be reused; any surprise leaves it to be aborted. */
    private void drain() {
        try {
            byte[] sink = new byte[DRAIN_LIMIT];
            while (received < expected) {
                int n = body.read(sink, 0, (int) Math.min(sink.length, expected - received));
                if (n < 0) {
                    failed = true;
                    return;
                }
                received += n;
                counter.bytes(n);
            }
            finishOnce();
        } catch (IOException e) {
            failed = true;
        }
    }
}
