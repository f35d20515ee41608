package dev.safetensors.spi;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/** Reads an HTTP {@code Retry-After} value (RFC 9110 section 10.2.3): delay seconds or an HTTP date. */
final class RetryAfter {
    /** Anything longer is clamped: the caller compares it with a cap of seconds anyway. */
    private static final long LONGEST_SECONDS = 999_999_999L;

    private RetryAfter() {
    }

    /**
     * @param value the header value, or {@code null}
     * @param now   the current time, for a date
     * @return the wait asked for (zero for a date in the past), or empty when absent or malformed
     */
    static Optional<Duration> parse(String value, Instant now) {
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        String v = value.trim();
        if (v.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return Optional.of(Duration.ofSeconds(v.length() > 9 ? LONGEST_SECONDS : Long.parseLong(v)));
        }
        try {
            Duration d = Duration.between(now, ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
            return Optional.of(d.isNegative() ? Duration.ZERO : d);
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
