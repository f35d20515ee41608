package dev.safetensors.gcs;

import com.google.api.gax.retrying.RetrySettings;

import java.time.Duration;

/**
 * How often a media GET is tried, taken from the {@code Storage} client's own {@link RetrySettings} so that
 * retries are configured in one place ({@code StorageOptions.newBuilder().setRetrySettings(...)}).
 *
 * <p>Always bounded: {@code maxAttempts} caps the attempts when it is positive, and the total timeout caps the
 * time spent waiting between attempts when it is positive. If neither is set there is exactly one attempt.
 * Only failures before any body byte was handed out are retried: connection errors and statuses 408, 429,
 * 500, 502, 503 and 504. Immutable.
 */
final class RetryPolicy {
    private final int maxAttempts;
    private final Duration initialDelay;
    private final double multiplier;
    private final Duration maxDelay;
    private final Duration totalTimeout;

    private RetryPolicy(int maxAttempts, Duration initialDelay, double multiplier, Duration maxDelay,
                        Duration totalTimeout) {
        this.maxAttempts = maxAttempts;
        this.initialDelay = initialDelay;
        this.multiplier = multiplier;
        this.maxDelay = maxDelay;
        this.totalTimeout = totalTimeout;
    }

    static RetryPolicy of(RetrySettings s) {
        int attempts = s.getMaxAttempts();
        Duration total = s.getTotalTimeoutDuration();
        if (attempts <= 0 && total.isZero()) {
            attempts = 1;
        }
        return new RetryPolicy(attempts, s.getInitialRetryDelayDuration(), Math.max(1.0, s.getRetryDelayMultiplier()),
                s.getMaxRetryDelayDuration(), total);
    }

    static boolean isRetryableStatus(int status) {
        return status == 408 || status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
    }

    /**
     * @param attempt     the attempt that just failed, counting from 1
     * @param elapsedNanos time spent since the first attempt started
     * @return the delay before the next attempt, or {@code null} if no attempt is left
     */
    Duration delayAfter(int attempt, long elapsedNanos) {
        if (maxAttempts > 0 && attempt >= maxAttempts) {
            return null;
        }
        double millis = initialDelay.toMillis() * Math.pow(multiplier, attempt - 1);
        Duration delay = Duration.ofMillis((long) Math.min(millis, maxDelay.toMillis()));
        if (!totalTimeout.isZero() && Duration.ofNanos(elapsedNanos).plus(delay).compareTo(totalTimeout) > 0) {
            return null;
        }
        return delay;
    }

    @Override
    public String toString() {
        return "maxAttempts=" + maxAttempts + ", totalTimeout=" + totalTimeout;
    }
}
