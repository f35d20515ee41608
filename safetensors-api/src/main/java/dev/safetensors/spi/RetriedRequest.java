package dev.safetensors.spi;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;

import java.io.IOException;
import java.time.Duration;
import java.util.Objects;

/**
 * One request that is not a ranged read nor a listing page (a Hub revision listing, a {@code HEAD}) made under a
 * {@link RemotePolicy}: the same rule of what is worth another attempt, the same backoff and {@code Retry-After} cap,
 * the same attempt budget, so no request a backend makes escapes the policy.
 *
 * <p>An attempt says what its answer means by returning it: {@link Outcome#answer(Object) an answer} to hand back,
 * or {@link Outcome#retryable(int, String, IOException) a retryable status} with the failure it stands for. A thrown
 * failure is judged by the policy's one no-answer rule (a connection failure, a timeout or a short body is retried;
 * anything else is final at once). No decision is taken by the identity or the message of an exception.
 *
 * <p>Thread-safe when the attempt is; every call starts its own budget.
 */
public final class RetriedRequest {
    private static final System.Logger LOG = System.getLogger("dev.safetensors.spi");

    private RetriedRequest() {
    }

    /**
     * One attempt of the request.
     *
     * @param <T> what an answer carries
     */
    @FunctionalInterface
    public interface Attempt<T> {
        /**
         * Makes the request once.
         *
         * @param attempt the attempt, from 1
         * @return what the answer means
         * @throws IOException if no answer came or the answer is final failure
         */
        Outcome<T> make(int attempt) throws IOException;
    }

    /**
     * What one attempt's answer means.
     *
     * @param <T> what an answer carries
     */
    public static final class Outcome<T> {
        private final T value;
        private final int status;
        private final String retryAfter;
        private final IOException failure;

        private Outcome(T value, int status, String retryAfter, IOException failure) {
            this.value = value;
            this.status = status;
            this.retryAfter = retryAfter;
            this.failure = failure;
        }

        /**
         * @param value the answer, handed back by {@link #call}
         * @param <T>   what an answer carries
         * @return an outcome that ends the request
         */
        public static <T> Outcome<T> answer(T value) {
            return new Outcome<>(value, 0, null, null);
        }

        /**
         * @param status     a status {@link RemotePolicy#isRetryable(int)} names
         * @param retryAfter the answer's {@code Retry-After} value, or {@code null}
         * @param failure    what the answer means if no attempt is left: thrown by {@link #call} then
         * @param <T>        what an answer carries
         * @return an outcome worth another attempt
         * @throws IllegalArgumentException if the status is not retryable
         */
        public static <T> Outcome<T> retryable(int status, String retryAfter, IOException failure) {
            if (!RemotePolicy.isRetryable(status)) {
                throw new IllegalArgumentException(status + " is not a retryable status");
            }
            return new Outcome<>(null, status, retryAfter, Objects.requireNonNull(failure, "failure"));
        }
    }

    /**
     * Makes attempts until one answers, one fails finally, or {@link RemotePolicy#maxAttempts()} are spent.
     *
     * @param policy  the policy: attempts, backoff, {@code Retry-After} cap and the clock that waits
     * @param name    the source or location, redacted, for messages and the debug log
     * @param what    the request, for messages ("the revision listing")
     * @param attempt makes one attempt
     * @param <T>     what an answer carries
     * @return the first answer
     * @throws IOException the last attempt's failure; {@link ErrorCode#INTERRUPTED} if interrupted while waiting;
     *                     {@link ErrorCode#SERVER_ERROR} when the server asked to wait longer than the cap
     */
    public static <T> T call(RemotePolicy policy, String name, String what, Attempt<T> attempt) throws IOException {
        for (int made = 1; ; made++) {
            Outcome<T> outcome;
            try {
                outcome = attempt.make(made);
            } catch (IOException e) {
                ErrorCode code = RemotePolicy.noAnswerCode(e);
                if (code == null || made >= policy.maxAttempts()) {
                    throw code == null || e instanceof StorageException ? e : new StorageException(code, name,
                            what + " failed after " + made + " attempt" + (made == 1 ? "" : "s") + ": "
                            + SourceNames.clip(String.valueOf(e)), e);
                }
                pause(policy, name, what, made, policy.backoff(made), e);
                continue;
            }
            if (outcome.failure == null) {
                return outcome.value;
            }
            if (made >= policy.maxAttempts()) {
                throw outcome.failure;
            }
            pause(policy, name, what, made, policy.waitBefore(made, outcome.retryAfter, name, outcome.status,
                    outcome.failure), outcome.failure);
        }
    }

    private static void pause(RemotePolicy policy, String name, String what, int made, Duration wait,
                              IOException why) throws StorageException {
        LOG.log(System.Logger.Level.DEBUG, () -> name + " " + what + " attempt " + made + " failed (" + why
                + "), retrying in " + wait.toMillis() + " ms");
        try {
            policy.time().sleep(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException(ErrorCode.INTERRUPTED, name, what + " was interrupted while waiting to"
                    + " retry");
        }
    }
}
