package dev.safetensors.spi;

import java.time.Duration;
import java.time.Instant;

/**
 * Where a remote source takes its time from: a monotonic clock for deadlines, the wall clock for
 * {@code Retry-After} dates, and the pause between two attempts. Tests pass one that advances on demand, so that no
 * test sleeps. Implementations are thread-safe.
 */
public interface TimeSource {

    /** The JVM's clocks and {@link Thread#sleep}. */
    TimeSource SYSTEM = new TimeSource() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public Instant now() {
            return Instant.now();
        }

        @Override
        public void sleep(Duration duration) throws InterruptedException {
            Thread.sleep(Math.max(1, duration.toMillis()));
        }
    };

    /** @return a monotonic time in nanoseconds, only meaningful as a difference (as {@link System#nanoTime()}) */
    long nanoTime();

    /** @return the current wall-clock time, to interpret an HTTP date */
    Instant now();

    /**
     * Waits before the next attempt.
     *
     * @param duration how long
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    void sleep(Duration duration) throws InterruptedException;
}
