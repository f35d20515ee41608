package dev.safetensors.http;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RangeNotHonouredException;
import dev.safetensors.SourceStatistics;
import dev.safetensors.StorageException;
import dev.safetensors.fixtures.ScriptedAnswer;
import dev.safetensors.fixtures.ScriptedRangeServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.EOFException;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Servers that answer a range request with something else than the bytes asked: WireMock for answers whose headers
 * contradict each other, the test kit's range server for bodies that misbehave.
 */
class RangeFailureTest {
    private static final WireMockServer SERVER = new WireMockServer(wireMockConfig().bindAddress("127.0.0.1")
            .dynamicPort().http2PlainDisabled(true).gzipDisabled(true));
    /** Only a guard against a client that never hangs up on an endless body. */
    private static final Duration HANG_GUARD = Duration.ofSeconds(60);

    private static ScriptedRangeServer ranges;

    static {
        SERVER.start();
    }

    private final HttpSourceProvider provider = new HttpSourceProvider(HttpSettings.builder()
            .connectTimeout(Duration.ofSeconds(2)).requestTimeout(Duration.ofSeconds(5))
            .maxRetries(0).backoff(Duration.ofMillis(1), Duration.ofMillis(10)).build());

    @BeforeAll
    static void start() throws IOException {
        ranges = new ScriptedRangeServer();
    }

    @BeforeEach
    void reset() {
        SERVER.resetAll();
        ranges.reset();
    }

    @AfterAll
    static void stop() throws IOException {
        SERVER.stop();
        ranges.close();
    }

    /** Publishes {@code object} and opens it; its first request gets {@code answer}. */
    private RandomAccessSource scripted(ScriptedAnswer answer, byte[] object) throws IOException {
        URI uri = ranges.publish("/f", object);
        ranges.script(answer);
        return provider.open(Location.of(uri));
    }

    private RandomAccessSource answering(ResponseDefinitionBuilder answer) throws IOException {
        SERVER.stubFor(get(urlPathEqualTo("/f")).willReturn(answer));
        return provider.open(Location.parse(SERVER.baseUrl() + "/f"));
    }

    private static ResponseDefinitionBuilder partial(String contentRange, int bodyLength) {
        return aResponse().withStatus(206).withHeader("Content-Range", contentRange).withBody(new byte[bodyLength]);
    }

    private static String rangeFailure(RandomAccessSource s, long position, int length) {
        return assertThrows(RangeNotHonouredException.class, () -> s.read(position, ByteBuffer.allocate(length)))
                .getMessage();
    }

    @Test
    void anIgnoredRangeWithAWholeBodyFailsWithoutReadingIt() throws Exception {
        try (RandomAccessSource s = scripted(ScriptedAnswer.ignoreRange(), new byte[8 << 20])) {
            String message = rangeFailure(s, 0, 100);
            assertTrue(message.contains("status 200"), message);
            assertEquals(0, s.statistics().bytesRead(), "the body is not read; anIgnoredRangeIsAbandonedNotDrained"
                    + " shows it is not drained either");
        }
        assertEquals(1, ranges.requestCount(), "no second try");
    }

    @Test
    void anIgnoredRangeIsAbandonedNotDrained() throws Exception {
        try (ScriptedRangeServer endless = new ScriptedRangeServer();
             RandomAccessSource s = provider.open(Location.of(endless.url("/endless")))) {
            endless.script(ScriptedAnswer.endless(200, "Content-Length: " + ScriptedRangeServer.TERABYTE));
            assertThrows(RangeNotHonouredException.class, () -> s.read(0, ByteBuffer.allocate(100)));
            // a client that drained the declared terabyte would never hang up: the wait is a guard against a hang
            long written = endless.awaitQuiet(HANG_GUARD);
            assertTrue(written < ScriptedRangeServer.ABANDONED_AT_MOST, "the server sent " + written + " body bytes"
                    + " before the client hung up: no more than the socket buffers hold");
            assertEquals(0, s.statistics().bytesRead());
            assertEquals(1, endless.requestCount());
        }
    }

    @Test
    void aWrongStartIsRejected() throws Exception {
        try (RandomAccessSource s = answering(partial("bytes 1-100/1000", 100))) {
            assertTrue(rangeFailure(s, 0, 100).contains("bytes 1-100/1000"));
        }
    }

    @Test
    void aWrongEndIsRejected() throws Exception {
        try (RandomAccessSource s = answering(partial("bytes 0-98/1000", 99))) {
            assertTrue(rangeFailure(s, 0, 100).contains("bytes 0-98/1000"));
        }
    }

    @Test
    void aMissingContentRangeIsRejected() throws Exception {
        try (RandomAccessSource s = answering(aResponse().withStatus(206).withBody(new byte[100]))) {
            assertTrue(rangeFailure(s, 0, 100).contains("missing"));
        }
    }

    @Test
    void aChangedTotalIsRejected() throws Exception {
        SERVER.stubFor(get(urlPathEqualTo("/f")).inScenario("total").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(partial("bytes 0-9/1000", 10)).willSetStateTo("grown"));
        SERVER.stubFor(get(urlPathEqualTo("/f")).inScenario("total").whenScenarioStateIs("grown")
                .willReturn(partial("bytes 10-19/2000", 10)));
        try (RandomAccessSource s = provider.open(Location.parse(SERVER.baseUrl() + "/f"))) {
            assertEquals(10, s.read(0, ByteBuffer.allocate(10)));
            assertTrue(rangeFailure(s, 10, 10).contains("size changed from 1000 to 2000"));
        }
    }

    @Test
    void aServerWithoutRangesServesAnObjectSmallerThanTheRead() throws Exception {
        byte[] object = new byte[100];
        new java.util.Random(1).nextBytes(object);
        try (RandomAccessSource s = scripted(ScriptedAnswer.ignoreRange(), object)) {
            ByteBuffer prefix = ByteBuffer.allocate(128 * 1024);
            assertEquals(100, s.read(0, prefix), "the whole object is exactly the bytes asked for");
            assertArrayEquals(object, java.util.Arrays.copyOf(prefix.array(), 100));
            assertEquals(100, s.size());
            assertEquals(-1, s.read(100, ByteBuffer.allocate(8)));
        }
    }

    @Test
    void aServerWithoutRangesIsRefusedWhenTheObjectIsLongerThanTheRead() throws Exception {
        try (RandomAccessSource s = scripted(ScriptedAnswer.ignoreRange(), new byte[100])) {
            assertTrue(rangeFailure(s, 0, 50).contains("status 200"));
            assertEquals(0, s.statistics().bytesRead(), "not one byte of the body is taken");
        }
    }

    @Test
    void aShortBodyIsRejected() throws Exception {
        try (RandomAccessSource s = answering(partial("bytes 0-99/1000", 50))) {
            StorageException e = assertThrows(StorageException.class, () -> s.read(0, ByteBuffer.allocate(100)));
            assertEquals(ErrorCode.TRUNCATED, e.code());
            assertTrue(e.getMessage().contains("body ended after 50 of 100 promised bytes"), e.getMessage());
        }
    }

    @Test
    void anExtraBodyIsRejected() throws Exception {
        try (RandomAccessSource s = answering(partial("bytes 0-99/1000", 150))) {
            assertTrue(rangeFailure(s, 0, 100).contains("more than the 100 bytes"));
        }
    }

    @Test
    void anEncodedBodyIsRejected() throws Exception {
        try (RandomAccessSource s = scripted(ScriptedAnswer.serve().withHeader("Content-Encoding: gzip"),
                new byte[1000])) {
            assertTrue(rangeFailure(s, 0, 100).contains("encoded"));
        }
    }

    @Test
    void unsatisfiableAtTheEndIsTheEndOfTheObject() throws Exception {
        try (RandomAccessSource s = answering(aResponse().withStatus(416).withHeader("Content-Range", "bytes */1000"))) {
            assertEquals(-1, s.read(5000, ByteBuffer.allocate(10)));
            assertEquals(1000, s.size());
            assertEquals(-1, s.read(1000, ByteBuffer.allocate(10)));
            assertEquals(new SourceStatistics(1, 0, 1), s.statistics(), "the size was learned from the 416");
            assertThrows(EOFException.class, () -> s.openRange(990, 20));
        }
        assertEquals(1, SERVER.findAll(anyRequestedFor(anyUrl())).size());
    }

    @Test
    void unsatisfiableInsideTheObjectIsAClearError() throws Exception {
        try (RandomAccessSource s = answering(aResponse().withStatus(416).withHeader("Content-Range", "bytes */1000"))) {
            RangeNotHonouredException e = assertThrows(RangeNotHonouredException.class,
                    () -> s.read(10, ByteBuffer.allocate(10)));
            assertTrue(e.getMessage().contains("416 Range Not Satisfiable to bytes 10-19 although the object "
                    + "has 1000 bytes"), e.getMessage());
        }
    }

    @Test
    void unsatisfiableWithoutASizeIsTheEndOfTheObject() throws Exception {
        try (RandomAccessSource s = answering(aResponse().withStatus(416))) {
            assertEquals(-1, s.read(10, ByteBuffer.allocate(10)), "416: the read starts at or past the end");
        }
    }

    @Test
    void aReadPastAKnownSizeMakesNoRequest() throws Exception {
        try (RandomAccessSource s = answering(partial("bytes 0-9/10", 10))) {
            assertEquals(10, s.read(0, ByteBuffer.allocate(100)));
            assertEquals(-1, s.read(10, ByteBuffer.allocate(100)));
            assertEquals(-1, s.read(1 << 20, ByteBuffer.allocate(100)));
            assertEquals(1, s.statistics().requests());
        }
        assertEquals(1, SERVER.findAll(anyRequestedFor(anyUrl())).size());
    }

    @Test
    void aClosedSourceRefusesReads() throws Exception {
        RandomAccessSource s = answering(partial("bytes 0-9/10", 10));
        s.close();
        StorageException e = assertThrows(StorageException.class, () -> s.read(0, ByteBuffer.allocate(10)));
        assertEquals(ErrorCode.IO_ERROR, e.code());
    }
}
