package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceStatistics;
import dev.safetensors.StorageException;
import dev.safetensors.fixtures.RecordedRequest;
import dev.safetensors.fixtures.ScriptedAnswer;
import dev.safetensors.fixtures.ScriptedRangeServer;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.testing.ManualTime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Retries of 429, 5xx, resets and timeouts; redirect limits and loops, scripted answer by answer.
 *
 * <p>Alone ({@code @Isolated}): {@link #aSlowAnswerTimesOut()} runs on a real 200 ms request timeout and then counts
 * the requests the server received, so it does not share the cores with another class.
 */
@Isolated
class RetryAndRedirectTest {
    private static ScriptedRangeServer SERVER;
    private static final byte[] OBJECT = new byte[100];

    private final ManualTime time = new ManualTime();
    private final HttpSettings.Builder settings = HttpSettings.builder()
            .connectTimeout(Duration.ofSeconds(2)).requestTimeout(Duration.ofSeconds(5))
            .remotePolicy(RemotePolicy.builder().time(time).build())
            .maxRetries(3).backoff(Duration.ofMillis(100), Duration.ofSeconds(2));

    @BeforeAll
    static void start() throws IOException {
        SERVER = new ScriptedRangeServer();
    }

    @BeforeEach
    void reset() {
        SERVER.reset();
    }

    @AfterAll
    static void stop() throws IOException {
        SERVER.close();
    }

    /** Opens {@code path}, where the object is published: each test's scripted answers come first. */
    private RandomAccessSource open(String path) throws IOException {
        return new HttpSourceProvider(settings.build()).open(Location.of(SERVER.publish(path, OBJECT)));
    }

    private int requests() {
        return SERVER.requestCount();
    }

    @Test
    void tooManyRequestsIsRetriedAfterTheAskedDelay() throws Exception {
        SERVER.script(ScriptedAnswer.status(429, "Retry-After: 1"));
        try (RandomAccessSource s = open("/busy")) {
            assertEquals(10, s.read(0, ByteBuffer.allocate(10)));
            assertEquals(List.of(Duration.ofSeconds(1)), time.sleeps(), "Retry-After: 1 was honoured");
            assertEquals(1, s.statistics().requests(), "retries are part of one logical request");
            assertEquals(2, s.statistics().exchanges(), "but each attempt is an exchange");
        }
        assertEquals(2, requests());
    }

    @Test
    void aRetryAfterLongerThanTheBackoffLimitIsFinal() throws Exception {
        SERVER.script(ScriptedAnswer.status(429, "Retry-After: 3600"));
        try (RandomAccessSource s = open("/later")) {
            StorageException e = assertThrows(StorageException.class, () -> s.read(0, ByteBuffer.allocate(10)));
            assertEquals(ErrorCode.SERVER_ERROR, e.code());
            assertTrue(e.getMessage().contains("answered 429 and asked to wait 3600 seconds"), e.getMessage());
            assertEquals(List.of(), time.sleeps(), "no wait at all");
        }
        assertEquals(1, requests());
    }

    @Test
    void serviceUnavailableIsRetried() throws Exception {
        SERVER.script(ScriptedAnswer.status(503), ScriptedAnswer.status(503));
        try (RandomAccessSource s = open("/flaky")) {
            assertEquals(10, s.read(0, ByteBuffer.allocate(10)));
        }
        assertEquals(3, requests(), "503, 503, then 206");
        assertEquals(10, SERVER.bodyBytesSent());
    }

    @Test
    void aConnectionResetIsRetried() throws Exception {
        SERVER.script(ScriptedAnswer.resetConnection());
        try (RandomAccessSource s = open("/reset")) {
            assertEquals(10, s.read(0, ByteBuffer.allocate(10)));
        }
        assertEquals(2, requests());
    }

    @Test
    void aBodyCutShortIsResumedFromWhereItStopped() throws Exception {
        SERVER.script(ScriptedAnswer.serve().closeAfter(40));
        try (RandomAccessSource s = open("/cut")) {
            assertEquals(100, s.read(0, ByteBuffer.allocate(100)));
        }
        List<RecordedRequest> requests = SERVER.requests();
        assertEquals(2, requests.size(), "the first answer, cut, then one for the rest: " + requests);
        assertEquals("bytes=0-99", requests.get(0).header("Range"));
        assertEquals("bytes=40-99", requests.get(1).header("Range"), "the bytes that came are not asked again");
        assertEquals(100, SERVER.bodyBytesSent(), "40, then the 60 left");
    }

    @Test
    void aRefusedConnectionIsRetriedThenReported() throws Exception {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = probe.getLocalPort();
        }
        settings.maxRetries(2);
        try (RandomAccessSource s = new HttpSourceProvider(settings.build())
                .open(Location.parse("http://127.0.0.1:" + closedPort + "/x"))) {
            StorageException e = assertThrows(StorageException.class, () -> s.read(0, ByteBuffer.allocate(10)));
            assertEquals(ErrorCode.NETWORK, e.code());
            assertTrue(e.getMessage().contains("failed after 3 attempts"), e.getMessage());
            assertInstanceOf(ConnectException.class, e.getCause().getCause());
            assertEquals(2, time.sleeps().size(), "two backoffs between three attempts");
            assertTrue(time.sleeps().get(1).compareTo(Duration.ofMillis(100)) >= 0, "the second step doubles");
        }
    }

    @Test
    void persistentServerErrorsFailAfterTheRetryBudget() throws Exception {
        SERVER.script(ScriptedAnswer.status(500), ScriptedAnswer.status(500), ScriptedAnswer.status(500),
                ScriptedAnswer.status(500));
        try (RandomAccessSource s = open("/down")) {
            StorageException e = assertThrows(StorageException.class, () -> s.read(0, ByteBuffer.allocate(10)));
            assertEquals(ErrorCode.SERVER_ERROR, e.code());
            assertTrue(e.getMessage().contains("answered 500 after 4 attempts"), e.getMessage());
        }
        assertEquals(4, requests());
    }

    @Test
    void aSlowAnswerTimesOut() throws Exception {
        // java.net.http's own request timeout: real time, but the outcome does not depend on the load (the server
        // never answers, however long the client waits); the held connections end when the client gives up
        SERVER.script(ScriptedAnswer.silence(), ScriptedAnswer.silence());
        settings.requestTimeout(Duration.ofMillis(200)).maxRetries(1);
        try (RandomAccessSource s = open("/slow")) {
            StorageException e = assertThrows(StorageException.class, () -> s.read(0, ByteBuffer.allocate(10)));
            assertEquals(ErrorCode.TIMEOUT, e.code(), "a timeout, never INTERRUPTED");
            assertInstanceOf(HttpTimeoutException.class, e.getCause().getCause());
            assertTrue(e.getMessage().contains("failed after 2 attempts"), e.getMessage());
        }
        assertEquals(2, requests());
    }

    @Test
    void fiveRedirectsAreFollowed() throws Exception {
        redirectChain(5);
        try (RandomAccessSource s = open("/r0")) {
            assertEquals(10, s.read(0, ByteBuffer.allocate(10)));
            assertEquals(new SourceStatistics(1, 10, 6), s.statistics(), "one read, five redirects and the answer");
        }
        assertEquals(6, requests());
    }

    @Test
    void aSixthRedirectFails() throws Exception {
        redirectChain(6);
        try (RandomAccessSource s = open("/r0")) {
            StorageException e = assertThrows(StorageException.class, () -> s.read(0, ByteBuffer.allocate(10)));
            assertEquals(ErrorCode.IO_ERROR, e.code());
            assertTrue(e.getMessage().contains("more than 5 redirects"), e.getMessage());
        }
        assertEquals(6, requests(), "the sixth Location is not followed");
    }

    @Test
    void aRedirectLoopFails() throws Exception {
        SERVER.script(ScriptedAnswer.status(302, "Location: /b"), ScriptedAnswer.status(301, "Location: /a"));
        try (RandomAccessSource s = open("/a")) {
            StorageException e = assertThrows(StorageException.class, () -> s.read(0, ByteBuffer.allocate(10)));
            assertEquals(ErrorCode.IO_ERROR, e.code());
            assertTrue(e.getMessage().contains("redirect loop"), e.getMessage());
        }
        assertEquals(2, requests());
    }

    /** {@code /r0} redirects to {@code /r1} and so on; {@code /rN} serves the object. */
    private void redirectChain(int redirects) {
        for (int i = 0; i < redirects; i++) {
            SERVER.script(ScriptedAnswer.status(i % 2 == 0 ? 302 : 307, "Location: /r" + (i + 1) + "?sig=x" + i));
        }
        SERVER.publish("/r" + redirects, OBJECT);
    }
}
