package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import dev.safetensors.spi.TimeSource;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A response body whose blocked reads give up after the read timeout. {@code java.net.http}'s request timeout ends
 * when the status and headers arrive, and a body stream's {@code read} then waits as long as the server stalls. Here
 * a watchdog closes the body once a read has waited longer than the timeout; closing wakes the blocked read, which
 * then throws a {@link StorageException} with {@link ErrorCode#TIMEOUT} naming the source. Only time spent blocked in {@code read} counts: a
 * caller that pauses between reads is not timed out.
 *
 * <p>The watchdog is one task at a time per stream, on one daemon thread shared by all streams: armed by a read that
 * finds none pending (not once per read, which at 64 KiB a read of a fast body would be thousands a second), lapsing
 * when it fires outside a read, and cancelled, so removed at once, when the stream is closed: a closed or abandoned
 * stream is not kept reachable by its timer. Reads are meant for one thread; {@code close} may come from any thread.
 *
 * <p>Time is the policy's {@link TimeSource}: with {@link TimeSource#SYSTEM} the watchdog fires when the timeout is
 * due; with any other clock (a test's, which moves only when told) it looks at that clock every
 * {@value #POLL_MILLIS} ms of real time while a read is blocked, so that a read times out once the clock has moved
 * past its deadline, however long the machine took to get there.
 */
final class IdleTimeoutInputStream extends FilterInputStream {
    /** How often a clock other than {@link TimeSource#SYSTEM} is looked at while a read is blocked. */
    static final long POLL_MILLIS = 5;

    private final String name;
    private final long timeoutNanos;
    private final TimeSource time;
    private final Object lock = new Object();
    private boolean inRead;
    private long readStartedAt;
    private ScheduledFuture<?> watchdog;
    private boolean closed;
    private volatile boolean timedOut;

    /**
     * @param body    the response body
     * @param name    the source name, for the message
     * @param timeout the longest a read may wait for bytes
     * @param time    the clock the timeout is measured on
     */
    IdleTimeoutInputStream(InputStream body, String name, Duration timeout, TimeSource time) {
        super(body);
        this.name = name;
        this.timeoutNanos = timeout.toNanos();
        this.time = time;
    }

    @Override
    public int read() throws IOException {
        return (int) guarded(super::read);
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        return (int) guarded(() -> super.read(b, off, len));
    }

    @Override
    public long skip(long n) throws IOException {
        return guarded(() -> super.skip(n));
    }

    @Override
    public void close() throws IOException {
        synchronized (lock) {
            closed = true;
            if (watchdog != null) {
                watchdog.cancel(false);
                watchdog = null;
            }
        }
        super.close();
    }

    private void begin() throws IOException {
        if (timedOut) {
            throw timeout();
        }
        synchronized (lock) {
            inRead = true;
            readStartedAt = time.nanoTime();
            if (watchdog == null && !closed) {
                schedule(timeoutNanos);
            }
        }
    }

    private void end() {
        synchronized (lock) {
            inRead = false;
        }
    }

    /** Called holding the lock; {@code delayNanos} is on {@link #time}. */
    private void schedule(long delayNanos) {
        long realNanos = time == TimeSource.SYSTEM ? delayNanos : TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS);
        watchdog = Watchdog.TIMER.schedule(this::check, realNanos, TimeUnit.NANOSECONDS);
    }

    /** The watchdog: closes the body if the current read has waited too long, else waits for what is left. */
    private void check() {
        synchronized (lock) {
            watchdog = null;
            if (closed || !inRead) {
                return;
            }
            long left = readStartedAt + timeoutNanos - time.nanoTime();
            if (left > 0) {
                schedule(left);
                return;
            }
            timedOut = true;
        }
        HttpTransport.discard(in);
    }

    /** One blocking call on the body. */
    private interface BodyCall {
        long run() throws IOException;
    }

    /** Runs a read with the watchdog armed; once timed out, the answer is the timeout, whatever the read did. */
    private long guarded(BodyCall call) throws IOException {
        begin();
        try {
            long n = call.run();
            if (timedOut) {
                throw timeout();
            }
            return n;
        } catch (IOException e) {
            throw timedOut ? timeout() : e;
        } finally {
            end();
        }
    }

    /** @return the watchdogs now waiting, one per open stream at most: for tests */
    static int pendingWatchdogs() {
        return Watchdog.TIMER.getQueue().size();
    }

    /** The timer thread, started on first use; a daemon, so it never keeps a JVM alive. */
    private static final class Watchdog {
        static final ScheduledThreadPoolExecutor TIMER = create();

        private static ScheduledThreadPoolExecutor create() {
            ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, task -> {
                Thread t = new Thread(task, "safetensors-http-read-timeout");
                t.setDaemon(true);
                return t;
            });
            timer.setRemoveOnCancelPolicy(true);
            return timer;
        }
    }

    private StorageException timeout() {
        return new StorageException(ErrorCode.TIMEOUT, name, "no body bytes arrived for "
                + Duration.ofNanos(timeoutNanos).toMillis() + " ms; gave up on the response");
    }
}
