package dev.safetensors.testing;

import dev.safetensors.spi.TimeSource;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link TimeSource} for tests: time stands still until a test (or a sleep) moves it, and sleeping only records
 * the wait and advances the clock. No test that uses it sleeps for real. Thread-safe.
 */
public final class ManualTime implements TimeSource {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final Instant epoch = Instant.parse("2026-11-30T12:00:00Z");
    private final List<Duration> sleeps = new CopyOnWriteArrayList<>();

    /** Creates a clock at a fixed instant. */
    public ManualTime() {
    }

    @Override
    public long nanoTime() {
        return nanos.get();
    }

    @Override
    public Instant now() {
        return epoch.plusNanos(nanos.get());
    }

    @Override
    public void sleep(Duration duration) {
        sleeps.add(duration);
        advance(duration);
    }

    /**
     * @param duration how far to move the clock
     */
    public void advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
    }

    /** @return every wait asked for so far, in order */
    public List<Duration> sleeps() {
        return List.copyOf(sleeps);
    }
}
