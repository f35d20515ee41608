package dev.safetensors.http;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * When to retry an idempotent GET and how long to wait: connection failures, 429 and 5xx are retried up to
 * {@link HttpSettings#maxRetries()} times; waits grow exponentially from the base with "equal jitter" (half fixed,
 * half random, so that many clients failing together do not retry together), capped at the maximum. Immutable.
 */
final class RetryPolicy {
    private final int maxRetries;
    private final long baseNanos;
    private final long maxNanos;

    RetryPolicy(HttpSettings settings) {
        this.maxRetries = settings.maxRetries();
        this.baseNanos = settings.backoffBase().toNanos();
        this.maxNanos = settings.backoffMax().toNanos();
    }

    int maxRetries() {
        return maxRetries;
    }

    static boolean isRetryable(int status) {
        return status == 429 || (status >= 500 && status <= 599);
    }

    /**
     * @param retry the retry about to be made, from 1
     * @return a jittered wait between half the capped exponential step and the full step
     */
    private Duration backoff(int retry) {
        long step = baseNanos << Math.min(retry - 1, 20);
        long capped = step <= 0 || step > maxNanos ? maxNanos : step;
        long half = capped / 2;
        return Duration.ofNanos(half + ThreadLocalRandom.current().nextLong(half + 1));
    }

    /**
     * @param retry      the retry about to be made, from 1
     * @param retryAfter the answer's {@code Retry-After} value (delay seconds or an HTTP date), or {@code null}
     * @param now        the current time, for a date
     * @return the wait the server asked for, or the jittered backoff when it asked for none; empty when it asked
     *         for a longer wait than the maximum backoff, so the answer is final
     */
    Optional<Duration> delay(int retry, String retryAfter, Instant now) {
        Optional<Duration> asked = parseRetryAfter(retryAfter, now);
        if (asked.isPresent()) {
            return asked.get().toNanos() <= maxNanos ? asked : Optional.empty();
        }
        return Optional.of(backoff(retry));
    }

    static Optional<Duration> parseRetryAfter(String value, Instant now) {
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        String v = value.trim();
        if (v.chars().allMatch(Character::isDigit)) {
            return v.length() > 9 ? Optional.of(Duration.ofSeconds(999_999_999L))
                    : Optional.of(Duration.ofSeconds(Long.parseLong(v)));
        }
        try {
            Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            Duration d = Duration.between(now, at);
            return Optional.of(d.isNegative() ? Duration.ZERO : d);
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
