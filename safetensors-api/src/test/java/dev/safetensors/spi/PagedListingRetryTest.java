package dev.safetensors.spi;

import dev.safetensors.ErrorCode;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Location;
import dev.safetensors.SourceAccessDeniedException;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.SourceStatistics;
import dev.safetensors.StorageException;
import dev.safetensors.testing.ManualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A page's attempts follow the listing's {@link RemotePolicy}: retried statuses and lost answers, nothing else. */
class PagedListingRetryTest {
    private static final Duration BASE = Duration.ofMillis(100);
    private static final Duration MAX = Duration.ofSeconds(1);

    private final ManualTime time = new ManualTime();

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    private RemotePolicy policy(int attempts, TimeSource with) {
        return RemotePolicy.builder().maxAttempts(attempts).backoff(BASE, MAX).time(with).build();
    }

    /** One scripted answer of one attempt. */
    private interface Answer {
        RetriedRequest.Outcome<PagedListing.Page> give(Scripted listing) throws IOException;
    }

    private static Answer status(int status) {
        return l -> l.answered(status, null, null);
    }

    private static Answer status(int status, String retryAfter) {
        return l -> l.answered(status, retryAfter, null);
    }

    private static Answer noConnection() {
        return l -> {
            throw new StorageException(ErrorCode.NETWORK, l.name(), "connection refused",
                    new ConnectException("refused"));
        };
    }

    private static Answer page(String next, String... keys) {
        return l -> {
            List<ListEntry> entries = new ArrayList<>();
            for (String key : keys) {
                entries.add(ListEntry.file(Location.parse("s3://bucket/" + key), 1, null, null));
            }
            return RetriedRequest.Outcome.answer(new PagedListing.Page(entries, next));
        };
    }

    /** A listing whose attempts answer from a script, counting one exchange each and noting the token asked. */
    private static final class Scripted extends PagedListing {
        private final Deque<Answer> script;
        private final List<String> tokens = new ArrayList<>();

        Scripted(RemotePolicy policy, Answer... answers) {
            super("s3://bucket/", ListOptions.DEFAULT, 1000, policy);
            this.script = new ArrayDeque<>(List.of(answers));
        }

        @Override
        protected RetriedRequest.Outcome<Page> fetch(String token) throws IOException {
            counter().exchange();
            tokens.add(token);
            return script.removeFirst().give(this);
        }
    }

    private static List<String> drain(PagedListing listing) throws IOException {
        List<String> keys = new ArrayList<>();
        while (listing.hasNext()) {
            keys.add(listing.next().location().display());
        }
        return keys;
    }

    /** Each sleep lies within the equal-jitter step of its retry: half the capped step to the full step. */
    private void assertBackoffSteps(int retries) {
        List<Duration> sleeps = time.sleeps();
        assertEquals(retries, sleeps.size());
        for (int retry = 1; retry <= retries; retry++) {
            Duration step = BASE.multipliedBy(1L << (retry - 1));
            step = step.compareTo(MAX) > 0 ? MAX : step;
            Duration slept = sleeps.get(retry - 1);
            assertTrue(slept.compareTo(step.dividedBy(2)) >= 0 && slept.compareTo(step) <= 0,
                    "retry " + retry + " slept " + slept + ", outside " + step.dividedBy(2) + ".." + step);
        }
    }

    @Test
    void twoUnavailablePagesThenAnAnswerAreOnePageOfThreeExchanges() throws IOException {
        Scripted listing = new Scripted(policy(5, time), status(503), status(503), page(null, "a", "b"));
        assertEquals(List.of("s3://bucket/a", "s3://bucket/b"), drain(listing));
        assertEquals(1, listing.pages());
        assertEquals(new SourceStatistics(1, 0, 3), listing.cost());
        assertBackoffSteps(2);
    }

    @Test
    void aPageAnsweredUnavailableThenAPageIsRetriedOnce() throws IOException {
        Scripted listing = new Scripted(policy(5, time), status(503), page(null, "a"));
        assertEquals(List.of("s3://bucket/a"), drain(listing));
        assertEquals(java.util.Arrays.asList(null, null), listing.tokens);
        assertEquals(new SourceStatistics(1, 0, 2), listing.cost());
        assertBackoffSteps(1);
    }

    @Test
    void aPageAnsweredNotFoundIsFinalAtOnce() {
        Scripted listing = new Scripted(policy(5, time), status(404), page(null, "a"));
        SourceNotFoundException e = assertThrows(SourceNotFoundException.class, listing::hasNext);
        assertEquals(ErrorCode.NOT_FOUND, e.code());
        assertEquals(java.util.Collections.singletonList(null), listing.tokens);
        assertEquals(new SourceStatistics(1, 0, 1), listing.cost());
        assertEquals(List.of(), time.sleeps());
    }

    @Test
    void everyStatusMeansWhatTheOneMapSays() {
        for (int status : new int[] {400, 401, 403, 404, 405, 410, 412, 416, 429, 500, 501, 503, 599}) {
            Scripted listing = new Scripted(policy(1, time), status(status));
            // the exact type the one map gives, not any IOException
            Class<? extends IOException> type = StatusMapping.failure(status, "n", "m", null).getClass();
            IOException e = assertThrows(type, listing::hasNext);
            assertEquals(type, e.getClass(), "status " + status);
            assertEquals(StatusMapping.code(status), ErrorCode.of(e), "status " + status);
        }
    }

    @Test
    void theLastAttemptFailureReachesTheCaller() {
        Scripted listing = new Scripted(policy(3, time), status(500), status(502), status(503), page(null, "a"));
        StorageException e = assertThrows(StorageException.class, listing::hasNext);
        assertEquals(ErrorCode.SERVER_ERROR, e.code());
        assertTrue(e.getMessage().contains("503 after 3 attempts"), e.getMessage());
        assertEquals(new SourceStatistics(1, 0, 3), listing.cost());
        assertBackoffSteps(2);
    }

    @Test
    void everyStatusFailureKeepsTheClientFailureAsItsCause() {
        Map<Integer, Class<? extends IOException>> types = Map.of(400, StorageException.class,
                403, SourceAccessDeniedException.class, 404, SourceNotFoundException.class,
                501, StorageException.class, 503, StorageException.class);
        Map<Integer, ErrorCode> codes = Map.of(400, ErrorCode.IO_ERROR, 403, ErrorCode.ACCESS_DENIED,
                404, ErrorCode.NOT_FOUND, 501, ErrorCode.SERVER_ERROR, 503, ErrorCode.SERVER_ERROR);
        for (int status : new int[] {400, 403, 404, 501, 503}) {
            IOException cause = new IOException("the client's own failure");
            Scripted listing = new Scripted(policy(1, time), l -> l.answered(status, null, cause));
            IOException e = assertThrows(types.get(status), listing::hasNext);
            assertEquals(types.get(status), e.getClass(), "status " + status);
            assertEquals(codes.get(status), ErrorCode.of(e), "status " + status);
            assertSame(cause, e.getCause(), "status " + status);
        }
    }

    /** Runs a listing whose first attempt fails with {@code first}; checks it made one attempt and no wait. */
    private <T extends IOException> T finalAtOnce(Class<T> type, Answer first) {
        Scripted listing = new Scripted(policy(5, time), first, page(null, "a"));
        T e = assertThrows(type, listing::hasNext);
        assertEquals(new SourceStatistics(1, 0, 1), listing.cost());
        assertEquals(List.of(), time.sleeps());
        return e;
    }

    @Test
    void accessDeniedIsNotRetried() {
        assertEquals(ErrorCode.ACCESS_DENIED, finalAtOnce(SourceAccessDeniedException.class, status(403)).code());
    }

    @Test
    void notFoundIsNotRetried() {
        assertEquals(ErrorCode.NOT_FOUND, finalAtOnce(SourceNotFoundException.class, status(404)).code());
    }

    @Test
    void notImplementedIsAServerErrorNotRetried() {
        assertEquals(ErrorCode.SERVER_ERROR, finalAtOnce(StorageException.class, status(501)).code());
    }

    @Test
    void anInvalidAnswerIsNotRetried() {
        assertEquals(ErrorCode.INVALID_LISTING, finalAtOnce(StorageException.class, l -> {
            throw l.invalid("unreadable");
        }).code());
    }

    @Test
    void aLostConnectionIsRetried() throws IOException {
        Scripted listing = new Scripted(policy(5, time), noConnection(), page(null, "a"));
        assertEquals(List.of("s3://bucket/a"), drain(listing));
        assertEquals(new SourceStatistics(1, 0, 2), listing.cost());
        assertBackoffSteps(1);
    }

    @Test
    void lostConnectionsEndAsNetworkFailures() {
        Scripted listing = new Scripted(policy(2, time), noConnection(), noConnection());
        StorageException e = assertThrows(StorageException.class, listing::hasNext);
        assertEquals(ErrorCode.NETWORK, e.code());
        assertEquals(new SourceStatistics(1, 0, 2), listing.cost());
    }

    @Test
    void aRetryAfterWithinTheCapReplacesTheStep() throws IOException {
        Scripted listing = new Scripted(policy(5, time), status(429, "2"), page(null, "a"));
        assertEquals(List.of("s3://bucket/a"), drain(listing));
        assertEquals(List.of(Duration.ofSeconds(2)), time.sleeps());
    }

    @Test
    void aRetryAfterPastTheCapEndsTheListing() {
        Scripted listing = new Scripted(policy(5, time), status(503, "3600"), page(null, "a"));
        StorageException e = assertThrows(StorageException.class, listing::hasNext);
        assertEquals(ErrorCode.SERVER_ERROR, e.code());
        assertEquals(List.of(), time.sleeps());
    }

    @Test
    void theRetryOfTheSecondPageKeepsItsToken() throws IOException {
        Scripted listing = new Scripted(policy(5, time), page("t1", "a"), status(504), page(null, "b"));
        assertEquals(List.of("s3://bucket/a", "s3://bucket/b"), drain(listing));
        assertEquals(java.util.Arrays.asList(null, "t1", "t1"), listing.tokens);
        assertEquals(new SourceStatistics(2, 0, 3), listing.cost());
    }

    /** What a sleep does instead of waiting. */
    private interface Sleep {
        void run(Duration duration) throws InterruptedException;
    }

    /** @return a time source on {@link #time} whose sleeps do {@code sleep} */
    private TimeSource sleeping(Sleep sleep) {
        return new TimeSource() {
            @Override
            public long nanoTime() {
                return time.nanoTime();
            }

            @Override
            public Instant now() {
                return time.now();
            }

            @Override
            public void sleep(Duration duration) throws InterruptedException {
                sleep.run(duration);
            }
        };
    }

    @Test
    void anInterruptDuringTheBackoffEndsTheListing() {
        TimeSource interrupting = sleeping(d -> {
            throw new InterruptedException("interrupted while waiting");
        });
        Scripted listing = new Scripted(policy(5, interrupting), status(503), page(null, "a"));
        StorageException e = assertThrows(StorageException.class, listing::hasNext);
        assertEquals(ErrorCode.INTERRUPTED, e.code());
        assertTrue(Thread.currentThread().isInterrupted());
        assertEquals(new SourceStatistics(1, 0, 1), listing.cost());
    }

    @Test
    void closingDuringTheBackoffEndsTheListingWithoutAnotherRequest() throws IOException {
        Scripted[] holder = new Scripted[1];
        TimeSource closing = sleeping(d -> {
            holder[0].close();
            time.sleep(d);
        });
        holder[0] = new Scripted(policy(5, closing), status(503), page(null, "a"));
        assertFalse(holder[0].hasNext());
        assertEquals(new SourceStatistics(1, 0, 1), holder[0].cost());
        assertEquals(1, time.sleeps().size());
    }
}
