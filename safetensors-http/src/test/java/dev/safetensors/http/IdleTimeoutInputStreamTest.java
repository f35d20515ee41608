package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import dev.safetensors.spi.TimeSource;
import dev.safetensors.testing.ManualTime;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The read timeout on scripted bodies and a {@link ManualTime}: a body read advances the clock as a slow peer would
 * take time, so every outcome is decided by the clock and none by the machine's speed. {@link #HANG_GUARD} only
 * guards against a read the timeout failed to end.
 */
class IdleTimeoutInputStreamTest {
    private static final Duration TIMEOUT = Duration.ofMillis(200);
    private static final Duration HANG_GUARD = Duration.ofSeconds(60);

    /** A body whose reads each take {@code perByte} on the clock and give one byte, {@code length} in all. */
    private static InputStream slow(ManualTime time, Duration perByte, int length) {
        return new InputStream() {
            private int sent;

            @Override
            public int read() {
                if (sent == length) {
                    return -1;
                }
                time.advance(perByte);
                return sent++ & 0xFF;
            }
        };
    }

    /** A body that sends {@code first} bytes, then stalls until closed; {@code stallTime} passes on the clock. */
    private static final class Stalled extends InputStream {
        private final CountDownLatch closed = new CountDownLatch(1);
        private final ManualTime time;
        private final Duration stallTime;
        private int first;

        Stalled(ManualTime time, Duration stallTime, int first) {
            this.time = time;
            this.stallTime = stallTime;
            this.first = first;
        }

        @Override
        public int read() throws IOException {
            if (first > 0) {
                first--;
                return 7;
            }
            if (time != null) {
                time.advance(stallTime);
            }
            try {
                closed.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new IOException("closed");
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            int c = read();
            b[off] = (byte) c;
            return 1;
        }

        @Override
        public void close() {
            closed.countDown();
        }
    }

    @Test
    void aReadThatStallsPastTheTimeoutOnTheClockFailsWithTimeout() throws IOException {
        ManualTime time = new ManualTime();
        try (InputStream in = new IdleTimeoutInputStream(new Stalled(time, TIMEOUT.plusMillis(1), 1), "s3://b/k",
                TIMEOUT, time)) {
            assertEquals(7, in.read(), "bytes that come are read");
            StorageException e = assertTimeoutPreemptively(HANG_GUARD,
                    () -> assertThrows(StorageException.class, () -> in.read(new byte[10], 0, 10)));
            assertEquals(ErrorCode.TIMEOUT, e.code());
            assertEquals("s3://b/k: no body bytes arrived for 200 ms; gave up on the response [TIMEOUT]", e.getMessage());
            assertEquals(ErrorCode.TIMEOUT, assertThrows(StorageException.class, in::read).code(),
                    "a timed-out body stays timed out");
        }
    }

    @Test
    void aBodyThatKeepsComingSlowlyIsNotTimedOut() throws IOException {
        ManualTime time = new ManualTime();
        long start = time.nanoTime();
        try (InputStream in = new IdleTimeoutInputStream(slow(time, Duration.ofMillis(20), 100), "b", TIMEOUT,
                time)) {
            assertEquals(100, in.readAllBytes().length);
        }
        assertEquals(Duration.ofSeconds(2), Duration.ofNanos(time.nanoTime() - start),
                "2 s on the clock in all, ten times the timeout, but never 200 ms without a byte");
    }

    @Test
    void timeBetweenReadsDoesNotCount() throws IOException {
        ManualTime time = new ManualTime();
        try (InputStream in = new IdleTimeoutInputStream(slow(time, Duration.ofMillis(1), 3), "b", TIMEOUT, time)) {
            assertEquals(0, in.read());
            time.advance(TIMEOUT.multipliedBy(10));
            assertEquals(1, in.read());
            assertEquals(2, in.read());
            assertEquals(-1, in.read());
        }
    }

    @Test
    void theSystemClockTimesOutAStalledReadToo() throws IOException {
        // a real 1 ms timeout: how long the machine takes to notice changes when the test ends, never how
        try (InputStream in = new IdleTimeoutInputStream(new Stalled(null, Duration.ZERO, 0), "b",
                Duration.ofMillis(1), TimeSource.SYSTEM)) {
            StorageException e = assertTimeoutPreemptively(HANG_GUARD,
                    () -> assertThrows(StorageException.class, in::read));
            assertEquals(ErrorCode.TIMEOUT, e.code());
            assertTrue(e.getMessage().contains("no body bytes arrived for 1 ms"), e.getMessage());
        }
    }
}
