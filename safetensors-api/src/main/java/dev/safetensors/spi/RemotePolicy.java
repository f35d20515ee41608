package dev.safetensors.spi;

import dev.safetensors.ErrorCode;
import dev.safetensors.ErrorCoded;
import dev.safetensors.StorageException;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How a remote source spends time: how often it retries, how long it waits between attempts, how long a server may
 * make it wait, and how long one transfer may take. The same for every backend. Immutable and thread-safe.
 *
 * <h2>Retries</h2>
 * Connection failures and the statuses 408, 429, 500, 502, 503 and 504 are retried, up to {@link #maxAttempts()}
 * attempts in all. Between attempts the source waits an exponential step ({@link #backoffBase()} doubled per
 * retry, capped at {@link #backoffMax()}) with "equal jitter": half the step fixed, half random, so that clients
 * failing together do not retry together. A {@code Retry-After} the server sends replaces the step if it is no
 * longer than {@link #retryAfterCap()}; a longer one ends the request at once with a failure that says how long
 * the server asked to wait. A body that breaks midway (a reset, a short body, a read timeout) is resumed from its
 * first missing byte, at the same pinned version, as another attempt. The budget is per request and there is no
 * other: sending, status retries and resumptions of one read share {@link #maxAttempts()} attempts, and a reader
 * that fetches a tensor in parallel parts adds no retry loop of its own. A page of a listing
 * ({@link PagedListing}) is a request too, with its own budget. Only the final failure reaches the caller; each
 * retry is logged at {@code DEBUG}.
 *
 * <h2>Deadline</h2>
 * Every request has, besides the backend's idle timeout, an overall deadline from its first attempt to the end of
 * its body: the longer of {@link #minimumDeadline()} and the time its length takes at {@link #minimumRate()}. A
 * server that dribbles bytes just fast enough to beat the idle timeout still fails, with
 * {@link dev.safetensors.ErrorCode#TIMEOUT}, in bounded time.
 */
public final class RemotePolicy {
    /** 5 attempts, 250 ms to 8 s backoff, Retry-After up to 5 s, 30 s or 64 KiB/s, system time. */
    public static final RemotePolicy DEFAULT = builder().build();

    private final int maxAttempts;
    private final Duration backoffBase;
    private final Duration backoffMax;
    private final Duration retryAfterCap;
    private final long minimumRate;
    private final Duration minimumDeadline;
    private final TimeSource time;

    private RemotePolicy(Builder b) {
        this.maxAttempts = b.maxAttempts;
        this.backoffBase = b.backoffBase;
        this.backoffMax = b.backoffMax;
        this.retryAfterCap = b.retryAfterCap;
        this.minimumRate = b.minimumRate;
        this.minimumDeadline = b.minimumDeadline;
        this.time = b.time;
    }

    /** @return a builder holding the defaults of {@link #DEFAULT} */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder holding this policy, to change some of it */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.maxAttempts = maxAttempts;
        b.backoffBase = backoffBase;
        b.backoffMax = backoffMax;
        b.retryAfterCap = retryAfterCap;
        b.minimumRate = minimumRate;
        b.minimumDeadline = minimumDeadline;
        b.time = time;
        return b;
    }

    /** @return the attempts one request may take in all, first one included, at least 1 */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** @return the first backoff step */
    public Duration backoffBase() {
        return backoffBase;
    }

    /** @return the longest backoff step */
    public Duration backoffMax() {
        return backoffMax;
    }

    /** @return the longest {@code Retry-After} honoured; a longer one fails the request */
    public Duration retryAfterCap() {
        return retryAfterCap;
    }

    /** @return the slowest transfer rate a request's deadline allows, in bytes per second */
    public long minimumRate() {
        return minimumRate;
    }

    /** @return the shortest deadline of any request */
    public Duration minimumDeadline() {
        return minimumDeadline;
    }

    /** @return where time comes from */
    public TimeSource time() {
        return time;
    }

    /**
     * @param length the bytes a request asks for
     * @return how long the request may take from its first attempt to the end of its body
     */
    public Duration deadlineFor(long length) {
        long seconds = Math.max(0, length) / minimumRate + 1;
        Duration byRate = Duration.ofSeconds(seconds);
        return byRate.compareTo(minimumDeadline) > 0 ? byRate : minimumDeadline;
    }

    /**
     * @param status an HTTP status
     * @return whether an answer with it is worth another attempt: 408, 429, 500, 502, 503, 504
     */
    public static boolean isRetryable(int status) {
        return status == 408 || status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
    }

    /**
     * @param retry the retry about to be made, from 1
     * @return a jittered wait between half the capped exponential step and the full step
     */
    Duration backoff(int retry) {
        long base = backoffBase.toNanos();
        long max = backoffMax.toNanos();
        long step = base << Math.min(retry - 1, 30);
        long capped = step <= 0 || step > max ? max : step;
        long half = capped / 2;
        return Duration.ofNanos(half + ThreadLocalRandom.current().nextLong(half + 1));
    }

    /**
     * The one rule of what is worth another attempt when no answer came, for a request and for a body that broke
     * midway alike: a connection failure, a timeout or a short body. A changed object, a refused range, a missing
     * object, an unreadable answer or an interruption are final.
     *
     * @param e the failure of one attempt
     * @return the code a failure ends with if retries do not help, or {@code null} if it is final now
     */
    static ErrorCode noAnswerCode(IOException e) {
        if (e instanceof ErrorCoded coded) {
            ErrorCode code = coded.code();
            return code == ErrorCode.NETWORK || code == ErrorCode.TIMEOUT || code == ErrorCode.TRUNCATED ? code
                    : null;
        }
        if (e instanceof SocketTimeoutException) {
            return ErrorCode.TIMEOUT;
        }
        if (e instanceof InterruptedIOException) {
            return null;
        }
        return ErrorCode.NETWORK;
    }

    /**
     * The wait before retrying an answer with a retryable status: the server's {@code Retry-After} when it sent one
     * no longer than {@link #retryAfterCap()}, else the backoff step.
     *
     * @param retry      the retry about to be made, from 1
     * @param retryAfter the answer's {@code Retry-After} value, or {@code null}
     * @param name       the source or listing, for the message
     * @param status     the status answered
     * @param failure    what the answer means if it is not retried, the cause of the failure thrown
     * @return how long to wait
     * @throws StorageException {@link ErrorCode#SERVER_ERROR} when the server asked to wait longer than the cap
     */
    Duration waitBefore(int retry, String retryAfter, String name, int status, IOException failure)
            throws StorageException {
        Optional<Duration> asked = RetryAfter.parse(retryAfter, time.now());
        if (asked.isPresent() && asked.get().compareTo(retryAfterCap) > 0) {
            throw new StorageException(ErrorCode.SERVER_ERROR, name, "the server answered " + status
                    + " and asked to wait " + asked.get().toSeconds() + " seconds before retrying, longer than"
                    + " the " + retryAfterCap.toSeconds() + " seconds this client waits", failure);
        }
        return asked.isPresent() ? asked.get() : backoff(retry);
    }

    @Override
    public String toString() {
        return "RemotePolicy[maxAttempts=" + maxAttempts + ", backoff=" + backoffBase + ".." + backoffMax
                + ", retryAfterCap=" + retryAfterCap + ", minimumRate=" + minimumRate + " B/s, minimumDeadline="
                + minimumDeadline + "]";
    }

    /** Builds a {@link RemotePolicy}; each setter checks its argument. Not thread-safe. */
    public static final class Builder {
        private int maxAttempts = 5;
        private Duration backoffBase = Duration.ofMillis(250);
        private Duration backoffMax = Duration.ofSeconds(8);
        private Duration retryAfterCap = Duration.ofSeconds(5);
        private long minimumRate = 64 * 1024;
        private Duration minimumDeadline = Duration.ofSeconds(30);
        private TimeSource time = TimeSource.SYSTEM;

        private Builder() {
        }

        /**
         * @param attempts attempts in all, 1 (no retry) to 20
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxAttempts(int attempts) {
            if (attempts < 1 || attempts > 20) {
                throw new IllegalArgumentException("maxAttempts must be between 1 and 20: " + attempts);
            }
            this.maxAttempts = attempts;
            return this;
        }

        /**
         * @param base the first step, positive
         * @param max  the longest step, at least {@code base}
         * @return this builder
         * @throws IllegalArgumentException if not positive or {@code max < base}
         */
        public Builder backoff(Duration base, Duration max) {
            positive(base, "backoff base");
            positive(max, "backoff max");
            if (max.compareTo(base) < 0) {
                throw new IllegalArgumentException("backoff max " + max + " is below base " + base);
            }
            this.backoffBase = base;
            this.backoffMax = max;
            return this;
        }

        /**
         * @param cap the longest {@code Retry-After} honoured, zero or more
         * @return this builder
         * @throws IllegalArgumentException if negative
         */
        public Builder retryAfterCap(Duration cap) {
            Objects.requireNonNull(cap, "retryAfterCap");
            if (cap.isNegative()) {
                throw new IllegalArgumentException("retryAfterCap must not be negative: " + cap);
            }
            this.retryAfterCap = cap;
            return this;
        }

        /**
         * @param bytesPerSecond the slowest rate a transfer may have before its deadline ends it, positive
         * @param minimum        the shortest deadline, positive
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder deadline(long bytesPerSecond, Duration minimum) {
            if (bytesPerSecond <= 0) {
                throw new IllegalArgumentException("minimum rate must be positive: " + bytesPerSecond);
            }
            this.minimumRate = bytesPerSecond;
            this.minimumDeadline = positive(minimum, "minimum deadline");
            return this;
        }

        /**
         * @param time the clocks and sleeper to use; tests pass one that does not sleep
         * @return this builder
         */
        public Builder time(TimeSource time) {
            this.time = Objects.requireNonNull(time, "time");
            return this;
        }

        /** @return the policy */
        public RemotePolicy build() {
            return new RemotePolicy(this);
        }

        private static Duration positive(Duration d, String what) {
            Objects.requireNonNull(d, what);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive: " + d);
            }
            return d;
        }
    }
}
