package dev.safetensors.spi;

import dev.safetensors.ErrorCode;
import dev.safetensors.RangeNotHonouredException;
import dev.safetensors.SourceAccessDeniedException;
import dev.safetensors.SourceChangedException;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.StorageException;
import dev.safetensors.testing.ManualTime;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The shared remote layer against a scripted backend: statuses, retries, Retry-After, deadlines, reuse. */
class AbstractRangedSourceTest {
    private final ManualTime time = new ManualTime();
    private final RemotePolicy policy = RemotePolicy.builder().time(time).build();

    private static Map<String, String> range(String contentRange, String etag) {
        return Map.of("Content-Range", contentRange, "ETag", etag);
    }

    @Test
    void anExactLengthRangeConfirmsItsEndAndReleasesTheConnection() throws Exception {
        ScriptedSource s = new ScriptedSource(policy).answer(206, range("bytes 0-9/100", "\"e\""), new byte[10]);
        ByteBuffer dst = ByteBuffer.allocate(10);
        try (ReadableByteChannel ch = s.openRange(0, 10)) {
            while (dst.hasRemaining()) {
                ch.read(dst);
            }
        }
        assertEquals(1, s.released.get(), "closed normally: the client may reuse the connection");
        assertEquals(0, s.aborted.get());
    }

    @Test
    void aByteMoreThanPromisedIsCaughtByAnExactLengthReader() throws Exception {
        ScriptedSource s = new ScriptedSource(policy).answer(206, range("bytes 0-9/100", "\"e\""), new byte[11]);
        ByteBuffer dst = ByteBuffer.allocate(10);
        try (ReadableByteChannel ch = s.openRange(0, 10)) {
            RangeNotHonouredException e = assertThrows(RangeNotHonouredException.class, () -> {
                while (dst.hasRemaining()) {
                    ch.read(dst);
                }
            });
            assertTrue(e.getMessage().contains("more than the 10 bytes"), e.getMessage());
        }
        assertEquals(1, s.aborted.get(), "a bad body is aborted, never drained or reused");
    }

    @Test
    void anEarlyCloseAbortsALargeRemainderAndDrainsASmallOne() throws Exception {
        ScriptedSource s = new ScriptedSource(policy)
                .answer(206, range("bytes 0-99999/100000", "\"e\""), new byte[100_000])
                .answer(206, range("bytes 0-999/100000", "\"e\""), new byte[1000]);
        try (ReadableByteChannel ch = s.openRange(0, 100_000)) {
            ch.read(ByteBuffer.allocate(10));
        }
        assertEquals(1, s.aborted.get(), "99,990 bytes left: dropped");
        try (ReadableByteChannel ch = s.openRange(0, 1000)) {
            ch.read(ByteBuffer.allocate(10));
        }
        assertEquals(1, s.aborted.get());
        assertEquals(1, s.released.get(), "990 bytes left: read, and the connection kept");
    }

    @Test
    void aReadAtTheEndBeforeTheSizeIsKnownIsMinusOneOn416() throws Exception {
        ScriptedSource s = new ScriptedSource(policy).answer(416, Map.of("Content-Range", "bytes */64"), new byte[0]);
        assertEquals(-1, s.read(64, ByteBuffer.allocate(8)));
        assertEquals(64, s.size(), "the 416 told the size");
        assertEquals(1, s.asked.size());
    }

    @Test
    void aWholeObjectNoLongerThanAskedIsAcceptedFromAServerWithoutRanges() throws Exception {
        byte[] object = {1, 2, 3, 4, 5};
        ScriptedSource s = new ScriptedSource(policy).answer(200, Map.of("Content-Length", "5"), object);
        ByteBuffer prefix = ByteBuffer.allocate(128 * 1024);
        assertEquals(5, s.read(0, prefix));
        assertArrayEquals(object, java.util.Arrays.copyOf(prefix.array(), 5));
        assertEquals(5, s.size());
        assertEquals(1, s.released.get());
    }

    @Test
    void aWholeObjectLongerThanAskedIsRefusedAndAborted() throws Exception {
        ScriptedSource s = new ScriptedSource(policy).answer(200, Map.of("Content-Length", "1000"), new byte[1000]);
        RangeNotHonouredException e = assertThrows(RangeNotHonouredException.class,
                () -> s.read(0, ByteBuffer.allocate(100)));
        assertEquals(ErrorCode.RANGE_NOT_HONOURED, e.code());
        assertEquals(1, s.aborted.get());
        assertEquals(0, s.statistics().bytesRead(), "not one byte of the body is read");
    }

    @Test
    void aWholeObjectOfUndeclaredLengthIsReadOnlyAsFarAsNeededToJudgeIt() throws Exception {
        ScriptedSource small = new ScriptedSource(policy).answer(200, Map.of(), new byte[] {9, 8, 7});
        ByteBuffer dst = ByteBuffer.allocate(100);
        assertEquals(3, small.read(0, dst));
        assertEquals(3, small.size());
        assertEquals(0, small.aborted.get());

        java.util.concurrent.atomic.AtomicInteger served = new java.util.concurrent.atomic.AtomicInteger();
        InputStream endless = new InputStream() {
            @Override
            public int read() {
                served.incrementAndGet();
                return 1;
            }
        };
        ScriptedSource large = new ScriptedSource(policy).answer(200, Map.of(), endless);
        assertThrows(RangeNotHonouredException.class, () -> large.read(0, ByteBuffer.allocate(100)));
        assertEquals(101, served.get(), "one byte more than asked tells it is longer");
        assertEquals(1, large.aborted.get());
    }

    @Test
    void statusesMapToTypedFailuresWithCodes() throws Exception {
        assertEquals(ErrorCode.NOT_FOUND, assertThrows(SourceNotFoundException.class, () -> new ScriptedSource(policy)
                .answer(404, Map.of(), new byte[0]).read(0, ByteBuffer.allocate(8))).code());
        assertEquals(ErrorCode.NOT_FOUND, assertThrows(SourceNotFoundException.class, () -> new ScriptedSource(policy)
                .answer(410, Map.of(), new byte[0]).read(0, ByteBuffer.allocate(8))).code());
        assertEquals(ErrorCode.ACCESS_DENIED, assertThrows(SourceAccessDeniedException.class,
                () -> new ScriptedSource(policy).answer(401, Map.of(), new byte[0]).read(0, ByteBuffer.allocate(8)))
                .code());
        assertEquals(ErrorCode.ACCESS_DENIED, assertThrows(SourceAccessDeniedException.class,
                () -> new ScriptedSource(policy).answer(403, Map.of(), new byte[0]).read(0, ByteBuffer.allocate(8)))
                .code());
        assertEquals(ErrorCode.SOURCE_CHANGED, assertThrows(SourceChangedException.class,
                () -> new ScriptedSource(policy).answer(412, Map.of(), new byte[0]).read(0, ByteBuffer.allocate(8)))
                .code());
    }

    @Test
    void retryableStatusesAreRetriedWithGrowingJitteredBackoffThenFail() throws Exception {
        ScriptedSource s = new ScriptedSource(policy);
        for (int status : new int[] {408, 429, 500, 502, 503}) {
            s.answer(status, Map.of(), new byte[0]);
        }
        StorageException e = assertThrows(StorageException.class, () -> s.read(0, ByteBuffer.allocate(8)));
        assertEquals(ErrorCode.SERVER_ERROR, e.code());
        assertTrue(e.getMessage().contains("answered 503 after 5 attempts"), e.getMessage());
        List<Duration> sleeps = time.sleeps();
        assertEquals(4, sleeps.size(), "a wait between attempts, none after the last");
        for (int i = 0; i < sleeps.size(); i++) {
            Duration step = Duration.ofMillis(250L << i);
            assertTrue(sleeps.get(i).compareTo(step.dividedBy(2)) >= 0 && sleeps.get(i).compareTo(step) <= 0,
                    "retry " + (i + 1) + " waited " + sleeps.get(i) + ", outside [" + step.dividedBy(2) + ", " + step
                            + "]");
        }
        assertEquals(1, s.statistics().requests(), "one request, however many attempts");
        assertEquals(5, s.aborted.get(), "every failed answer is dropped");
    }

    @Test
    void aStatusThatIsNotRetryableIsFinalAtOnce() throws Exception {
        ScriptedSource s = new ScriptedSource(policy).answer(501, Map.of(), new byte[0]);
        StorageException e = assertThrows(StorageException.class, () -> s.read(0, ByteBuffer.allocate(8)));
        assertEquals(ErrorCode.SERVER_ERROR, e.code());
        assertEquals(List.of(), time.sleeps());
    }

    @Test
    void aShortRetryAfterIsHonouredALongOneFailsAtOnceSayingHowLong() throws Exception {
        ScriptedSource s = new ScriptedSource(policy)
                .answer(503, Map.of("Retry-After", "3"), new byte[0])
                .answer(206, range("bytes 0-7/8", "\"e\""), new byte[8]);
        assertEquals(8, s.read(0, ByteBuffer.allocate(8)));
        assertEquals(List.of(Duration.ofSeconds(3)), time.sleeps());

        ScriptedSource greedy = new ScriptedSource(policy).answer(503, Map.of("Retry-After", "86400"), new byte[0]);
        StorageException e = assertThrows(StorageException.class, () -> greedy.read(0, ByteBuffer.allocate(8)));
        assertEquals(ErrorCode.SERVER_ERROR, e.code());
        assertTrue(e.getMessage().contains("asked to wait 86400 seconds"), e.getMessage());
        assertEquals(1, time.sleeps().size(), "no wait for the long Retry-After");

        ScriptedSource dated = new ScriptedSource(policy).answer(429, Map.of("Retry-After",
                java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.format(time.now().plusSeconds(3600)
                        .atZone(java.time.ZoneOffset.UTC))), new byte[0]);
        assertTrue(assertThrows(StorageException.class, () -> dated.read(0, ByteBuffer.allocate(8))).getMessage()
                .contains("asked to wait 3600 seconds"));
    }

    @Test
    void connectionFailuresAreRetriedAndEndAsNetworkOrTimeout() throws Exception {
        ScriptedSource s = new ScriptedSource(policy.toBuilder().maxAttempts(2).build())
                .fail(new ConnectException("refused")).fail(new ConnectException("refused"));
        StorageException e = assertThrows(StorageException.class, () -> s.read(0, ByteBuffer.allocate(8)));
        assertEquals(ErrorCode.NETWORK, e.code());
        assertTrue(e.getMessage().contains("failed after 2 attempts"), e.getMessage());

        ScriptedSource slow = new ScriptedSource(policy.toBuilder().maxAttempts(2).build())
                .fail(new SocketTimeoutException("connect timed out")).fail(new SocketTimeoutException("again"));
        assertEquals(ErrorCode.TIMEOUT, assertThrows(StorageException.class,
                () -> slow.read(0, ByteBuffer.allocate(8))).code(), "a timeout, never INTERRUPTED");
    }

    @Test
    void aDribblingBodyFailsAtItsDeadlineOnTheInjectedClock() throws Exception {
        // One byte per read, and each read costs 10 s: 64 KiB would take days; the deadline is 30 s.
        InputStream dribble = new InputStream() {
            @Override
            public int read() {
                time.advance(Duration.ofSeconds(10));
                return 7;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                b[off] = (byte) read();
                return 1;
            }
        };
        ScriptedSource s = new ScriptedSource(policy).answer(206, range("bytes 0-65535/65536", "\"e\""), dribble);
        StorageException e = assertThrows(StorageException.class, () -> s.read(0, ByteBuffer.allocate(65536)));
        assertEquals(ErrorCode.TIMEOUT, e.code());
        assertTrue(e.getMessage().contains("longer than its deadline of 30 s"), e.getMessage());
        assertTrue(s.statistics().bytesRead() <= 4, "stopped after " + s.statistics().bytesRead() + " bytes");
        assertEquals(1, s.aborted.get());
    }

    @Test
    void theDeadlineGrowsWithTheLengthAtTheMinimumRate() {
        assertEquals(Duration.ofSeconds(30), RemotePolicy.DEFAULT.deadlineFor(1024));
        assertEquals(Duration.ofSeconds(16 * 1024 + 1), RemotePolicy.DEFAULT.deadlineFor(1024L * 1024 * 1024));
    }

    @Test
    void retriesStopWhenTheDeadlineLeavesNoTimeForTheWait() throws Exception {
        RemotePolicy tight = policy.toBuilder().deadline(64 * 1024, Duration.ofSeconds(4))
                .retryAfterCap(Duration.ofSeconds(5)).build();
        ScriptedSource s = new ScriptedSource(tight).answer(503, Map.of("Retry-After", "5"), new byte[0]);
        StorageException e = assertThrows(StorageException.class, () -> s.read(0, ByteBuffer.allocate(8)));
        assertEquals(ErrorCode.TIMEOUT, e.code());
        assertEquals(List.of(), time.sleeps());
    }

    @Test
    void aBodyThatStopsEarlySaysHowMuchArrived() throws Exception {
        RemotePolicy once = policy.toBuilder().maxAttempts(1).build();
        ScriptedSource s = new ScriptedSource(once).answer(206, range("bytes 0-99/100", "\"e\""), new byte[40]);
        StorageException e = assertThrows(StorageException.class, () -> s.read(0, ByteBuffer.allocate(100)));
        assertEquals(ErrorCode.TRUNCATED, e.code());
        assertTrue(e.getMessage().contains("body ended after 40 of 100 promised bytes"), e.getMessage());
    }

    @Test
    void aBodyThatBreaksMidwayIsResumedFromTheFirstMissingBytePinnedToItsVersion() throws Exception {
        byte[] object = new byte[100];
        for (int i = 0; i < object.length; i++) {
            object[i] = (byte) i;
        }
        ScriptedSource s = new ScriptedSource(policy)
                .answer(206, range("bytes 0-99/100", "\"e\""), java.util.Arrays.copyOf(object, 40))
                .answer(206, range("bytes 40-99/100", "\"e\""), java.util.Arrays.copyOfRange(object, 40, 100));
        ByteBuffer dst = ByteBuffer.allocate(100);
        assertEquals(100, s.read(0, dst));
        assertArrayEquals(object, dst.array());
        assertEquals(List.of("bytes=0-99", "bytes=40-99 if \"e\""), s.asked);
        assertEquals(1, s.statistics().requests(), "a resumption is an attempt of the same request");
        assertEquals(100, s.statistics().bytesRead());
        assertEquals(1, time.sleeps().size());
    }

    @Test
    void statusRetriesAndResumptionsShareOneAttemptBudget() throws Exception {
        ScriptedSource s = new ScriptedSource(policy)
                .answer(503, Map.of(), new byte[0])
                .answer(206, range("bytes 0-99/100", "\"e\""), new byte[10])
                .answer(503, Map.of(), new byte[0])
                .answer(206, range("bytes 10-99/100", "\"e\""), new byte[10])
                .answer(206, range("bytes 20-99/100", "\"e\""), new byte[10]);
        StorageException e = assertThrows(StorageException.class, () -> s.read(0, ByteBuffer.allocate(100)));
        assertEquals(ErrorCode.TRUNCATED, e.code());
        assertEquals(policy.maxAttempts(), s.asked.size(), "five attempts in all: " + s.asked);
        assertEquals(1, s.statistics().requests());
        assertTrue(s.script.isEmpty());
    }

    @Test
    void aRunOf503sOnARangeCostsTheAttemptBudgetOnce() throws Exception {
        ScriptedSource s = new ScriptedSource(policy);
        for (int i = 0; i < policy.maxAttempts(); i++) {
            s.answer(503, Map.of(), new byte[0]);
        }
        StorageException e = assertThrows(StorageException.class, () -> s.openRange(0, 100));
        assertEquals(ErrorCode.SERVER_ERROR, e.code());
        assertEquals(policy.maxAttempts(), s.asked.size());
    }

    @Test
    void aSizeChangeBetweenAnswersIsSourceChanged() throws Exception {
        ScriptedSource s = new ScriptedSource(policy)
                .answer(206, range("bytes 0-9/100", "\"e\""), new byte[10])
                .answer(416, Map.of("Content-Range", "bytes */50"), new byte[0]);
        assertEquals(10, s.read(0, ByteBuffer.allocate(10)));
        assertThrows(SourceChangedException.class, () -> s.read(60, ByteBuffer.allocate(10)));
        assertEquals(List.of("bytes=0-9", "bytes=60-69 if \"e\""), s.asked);
    }

    @Test
    void interruptedWhileWaitingToRetryIsInterrupted() throws Exception {
        TimeSource interrupting = new TimeSource() {
            @Override
            public long nanoTime() {
                return time.nanoTime();
            }

            @Override
            public java.time.Instant now() {
                return time.now();
            }

            @Override
            public void sleep(Duration d) throws InterruptedException {
                throw new InterruptedException();
            }
        };
        ScriptedSource s = new ScriptedSource(policy.toBuilder().time(interrupting).build())
                .answer(503, Map.of(), new byte[0]);
        try {
            IOException e = assertThrows(java.io.InterruptedIOException.class,
                    () -> s.read(0, ByteBuffer.allocate(8)));
            assertEquals(ErrorCode.INTERRUPTED, ErrorCode.of(e));
            assertTrue(Thread.currentThread().isInterrupted(), "the flag stays set for the caller");
        } finally {
            Thread.interrupted();
        }
    }
}
