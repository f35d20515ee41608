package dev.safetensors.azure;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.RangeNotHonouredException;
import dev.safetensors.SourceAccessDeniedException;
import dev.safetensors.SourceChangedException;
import dev.safetensors.SourceIdentity;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.StorageException;
import dev.safetensors.fixtures.ScriptedRangeServer;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.testing.ManualTime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A WireMock server that plays a Blob Storage account and misbehaves: what the source catches, and how.
 *
 * <p>Alone ({@code @Isolated}): it captures {@link AzureSource}'s logger, which every Azure read in the JVM writes to.
 */
@Isolated
class AzureSourceMisbehaviourTest {
    private static final String ACCOUNT = "acct";
    private static final String KEY = Base64.getEncoder().encodeToString("key-that-never-shows-0123456789".getBytes());
    private static final String SAS_SIGNATURE = "SAS-SIGNATURE-NEVER-SHOWN";
    private static final String PATH = "/" + ACCOUNT + "/models/m.safetensors";
    private static final String ETAG = "\"0x8DA1\"";
    /** Only a guard against a client that drains an endless body, which would never hang up. */
    private static final long HANG_GUARD_SECONDS = 60;

    private static WireMockServer server;
    private final ManualTime time = new ManualTime();

    @BeforeAll
    static void start() {
        server = new WireMockServer(options().bindAddress("127.0.0.1").dynamicPort());
        server.start();
    }

    @AfterAll
    static void stop() {
        server.stop();
    }

    @BeforeEach
    void reset() {
        server.resetAll();
    }

    private AzureSource open(AzureClientOptions.Builder credential) throws Exception {
        AzureClientOptions o = credential.account(ACCOUNT)
                .endpoint("http://127.0.0.1:" + server.port() + "/" + ACCOUNT).entraId(false).build();
        return (AzureSource) new AzureSourceProvider(o, RemotePolicy.builder().time(time).build())
                .open(Location.parse("az://models/m.safetensors"));
    }

    private AzureSource open() throws Exception {
        return open(AzureClientOptions.builder().key(KEY));
    }

    private static void stub(ResponseDefinitionBuilder answer) {
        server.stubFor(get(urlPathEqualTo(PATH)).willReturn(answer));
    }

    private static List<LoggedRequest> requests() {
        return server.findAll(getRequestedFor(urlPathEqualTo(PATH)));
    }

    /**
     * A server that ignores the range and sends an endless body: the read fails at once, and the server is hung up
     * on before it could send {@link ScriptedRangeServer#ABANDONED_AT_MOST} bytes, so the body was abandoned, not
     * drained (a client that drained would never hang up; the wait for the hang-up is only a guard against that).
     */
    @Test
    void aWholeBodyInsteadOfTheRangeIsRangeNotHonouredAndAbandonedNotDrained() throws Exception {
        try (ScriptedRangeServer endless = ScriptedRangeServer.endless(200, "ETag: " + ETAG,
                "Transfer-Encoding: chunked")) {
            AzureClientOptions o = AzureClientOptions.builder().key(KEY).account(ACCOUNT)
                    .endpoint(endless.endpoint() + "/" + ACCOUNT).entraId(false).build();
            try (AzureSource source = (AzureSource) new AzureSourceProvider(o, RemotePolicy.builder().time(time)
                    .build()).open(Location.parse("az://models/m.safetensors"))) {
                RangeNotHonouredException e = assertThrows(RangeNotHonouredException.class,
                        () -> source.read(0, ByteBuffer.allocate(128 * 1024)));
                assertEquals(ErrorCode.RANGE_NOT_HONOURED, e.code());
                assertEquals(0, source.statistics().bytesRead(), "no byte of the body is taken");
                long written = endless.awaitQuiet(Duration.ofSeconds(HANG_GUARD_SECONDS));
                assertTrue(written < ScriptedRangeServer.ABANDONED_AT_MOST, "the server sent " + written
                        + " body bytes");
            }
        }
    }

    @Test
    void aBodyThatEndsBeforeItsContentRangeIsResumedFromItsFirstMissingByteAtTheSameVersion() throws Exception {
        // chunked, so no Content-Length gives the short length away before the body ends
        stub(aResponse().withStatus(206).withHeader("ETag", ETAG).withHeader("Content-Range", "bytes 0-99/1000")
                .withBody(new byte[50]).withChunkedDribbleDelay(2, 10));
        server.stubFor(get(urlPathEqualTo(PATH)).atPriority(1).withHeader("x-ms-range", equalTo("bytes=50-99"))
                .willReturn(aResponse().withStatus(206).withHeader("ETag", ETAG)
                        .withHeader("Content-Range", "bytes 50-99/1000").withBody(new byte[50])));
        try (AzureSource source = open()) {
            assertEquals(100, source.read(0, ByteBuffer.allocate(100)));
            assertEquals(1, source.statistics().requests(), "the resumption is an attempt of the same request");
        }
        assertEquals(2, requests().size(), "the short answer, then the missing bytes");
        assertTrue(requests().get(1).getHeader("If-Match").contains("0x8DA1"),
                "the resumption is pinned to the version the first answer showed");
    }

    @Test
    void anotherETagOnALaterAnswerIsSourceChangedAndIfMatchCarriesThePinnedOne() throws Exception {
        server.stubFor(get(urlPathEqualTo(PATH)).inScenario("replaced").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(range(0, 10, 1000, ETAG)).willSetStateTo("replaced"));
        server.stubFor(get(urlPathEqualTo(PATH)).inScenario("replaced").whenScenarioStateIs("replaced")
                .willReturn(range(100, 10, 1000, "\"0x8DA2\"")));
        try (AzureSource source = open()) {
            assertEquals(10, source.read(0, ByteBuffer.allocate(10)));
            assertEquals("0x8DA1", source.attributes().get("etag"));

            SourceChangedException e = assertThrows(SourceChangedException.class,
                    () -> source.read(100, ByteBuffer.allocate(10)));
            assertEquals(ErrorCode.SOURCE_CHANGED, e.code());
            assertTrue(e.getMessage().contains("0x8DA2"), e.getMessage());
        }
        List<LoggedRequest> sent = requests();
        assertEquals(2, sent.size());
        assertFalse(sent.get(0).containsHeader("If-Match"), "nothing is pinned before the first answer");
        assertEquals("0x8DA1", sent.get(1).getHeader("If-Match"));
    }

    @Test
    void preconditionFailedIsSourceChanged() throws Exception {
        server.stubFor(get(urlPathEqualTo(PATH)).inScenario("412").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(range(0, 10, 1000, ETAG)).willSetStateTo("gone"));
        server.stubFor(get(urlPathEqualTo(PATH)).inScenario("412").whenScenarioStateIs("gone")
                .willReturn(aResponse().withStatus(412).withHeader("x-ms-error-code", "ConditionNotMet")));
        try (AzureSource source = open()) {
            source.read(0, ByteBuffer.allocate(10));
            SourceChangedException e = assertThrows(SourceChangedException.class,
                    () -> source.read(10, ByteBuffer.allocate(10)));
            assertEquals(ErrorCode.SOURCE_CHANGED, e.code());
            assertTrue(e.getMessage().contains("ConditionNotMet"), e.getMessage());
        }
    }

    @Test
    void aLongRetryAfterFailsAtOnceWithoutSleeping() throws Exception {
        stub(aResponse().withStatus(503).withHeader("Retry-After", "3600")
                .withHeader("x-ms-error-code", "ServerBusy"));
        try (AzureSource source = open()) {
            StorageException e = assertThrows(StorageException.class, () -> source.read(0, ByteBuffer.allocate(10)));
            assertEquals(ErrorCode.SERVER_ERROR, e.code());
            assertTrue(e.getMessage().contains("3600 seconds"), e.getMessage());
            assertEquals(1, source.statistics().exchanges(), "neither the SDK nor the shared policy retried");
        }
        assertEquals(List.of(), time.sleeps());
        assertEquals(1, requests().size());
    }

    @Test
    void a503IsRetriedByTheSharedPolicyAlone() throws Exception {
        server.stubFor(get(urlPathEqualTo(PATH)).inScenario("busy").whenScenarioStateIs(Scenario.STARTED)
                .willReturn(aResponse().withStatus(503).withHeader("Retry-After", "1")).willSetStateTo("ok"));
        server.stubFor(get(urlPathEqualTo(PATH)).inScenario("busy").whenScenarioStateIs("ok")
                .willReturn(range(0, 10, 10, ETAG)));
        try (AzureSource source = open()) {
            assertEquals(10, source.read(0, ByteBuffer.allocate(10)));
            assertEquals(1, source.statistics().requests());
            assertEquals(2, source.statistics().exchanges());
        }
        assertEquals(List.of(Duration.ofSeconds(1)), time.sleeps());
    }

    @Test
    void notFoundIsSourceNotFoundWithTheServiceCode() throws Exception {
        stub(aResponse().withStatus(404).withHeader("x-ms-error-code", "BlobNotFound"));
        try (AzureSource source = open()) {
            SourceNotFoundException e = assertThrows(SourceNotFoundException.class,
                    () -> source.read(0, ByteBuffer.allocate(10)));
            assertEquals(ErrorCode.NOT_FOUND, e.code());
            assertTrue(e.getMessage().contains("BlobNotFound"), e.getMessage());
        }
    }

    @Test
    void forbiddenIsAccessDeniedAndNeitherMessageNorDebugLogShowsTheSas() throws Exception {
        stub(aResponse().withStatus(403).withHeader("x-ms-error-code", "AuthenticationFailed"));
        List<String> logged = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                logged.add(String.valueOf(r.getMessage()));
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger logger = Logger.getLogger(AzureSource.class.getName());
        Level before = logger.getLevel();
        logger.setLevel(Level.ALL);
        logger.addHandler(handler);
        try (AzureSource source = open(AzureClientOptions.builder()
                .sasToken("?sv=2024-11-04&sp=r&sig=" + SAS_SIGNATURE))) {
            SourceAccessDeniedException e = assertThrows(SourceAccessDeniedException.class,
                    () -> source.read(0, ByteBuffer.allocate(10)));
            assertEquals(ErrorCode.ACCESS_DENIED, e.code());
            assertTrue(e.getMessage().contains("AuthenticationFailed"), e.getMessage());
            assertFalse(e.getMessage().contains(SAS_SIGNATURE), e.getMessage());
            assertFalse(source.toString().contains(SAS_SIGNATURE));
        } finally {
            logger.removeHandler(handler);
            logger.setLevel(before);
        }
        assertTrue(logged.stream().anyMatch(m -> m.contains("403")), "the request was logged: " + logged);
        assertTrue(logged.stream().noneMatch(m -> m.contains(SAS_SIGNATURE) || m.contains("sig=")), logged.toString());
        assertEquals(SAS_SIGNATURE, requests().get(0).queryParameter("sig").firstValue(), "the SAS was sent");
    }

    @Test
    void theSharedKeyNeverAppearsInTheOptionsOrTheRequest() throws Exception {
        stub(range(0, 10, 10, ETAG));
        AzureClientOptions o = AzureClientOptions.builder().account(ACCOUNT).key(KEY).build();
        assertFalse(o.toString().contains(KEY), o.toString());
        try (AzureSource source = open()) {
            source.read(0, ByteBuffer.allocate(10));
        }
        LoggedRequest sent = requests().get(0);
        assertTrue(sent.getHeader("Authorization").startsWith("SharedKey " + ACCOUNT + ":"));
        assertFalse(sent.getAbsoluteUrl().contains(KEY));
    }

    @Test
    void rangeNotSatisfiableAtTheEndIsTheEndAndBeforeItIsRangeNotHonoured() throws Exception {
        stub(aResponse().withStatus(416).withHeader("Content-Range", "bytes */100")
                .withHeader("x-ms-error-code", "InvalidRange"));
        try (AzureSource source = open()) {
            assertEquals(-1, source.read(100, ByteBuffer.allocate(10)));
            assertEquals(100, source.size());
            RangeNotHonouredException e = assertThrows(RangeNotHonouredException.class,
                    () -> source.readFully(50, ByteBuffer.allocate(10)));
            assertEquals(ErrorCode.RANGE_NOT_HONOURED, e.code());
        }
    }

    @Test
    void anAnswerWithoutAnETagCannotBePinned() throws Exception {
        stub(aResponse().withStatus(206).withHeader("Content-Range", "bytes 0-9/10").withBody(new byte[10]));
        try (AzureSource source = open()) {
            StorageException e = assertThrows(StorageException.class, () -> source.read(0, ByteBuffer.allocate(10)));
            assertEquals(ErrorCode.IO_ERROR, e.code());
            assertTrue(e.getMessage().contains("no ETag"), e.getMessage());
        }
    }

    @Test
    void theAttributesOfASnapshotAreDerivedFromItsIdentity() throws Exception {
        stub(range(0, 10, 10, ETAG));
        AzureClientOptions o = AzureClientOptions.builder().account(ACCOUNT).key(KEY)
                .endpoint("http://127.0.0.1:" + server.port() + "/" + ACCOUNT).entraId(false).build();
        String snapshot = "2026-01-01T00:00:00.0000000Z";
        try (AzureSource source = (AzureSource) new AzureSourceProvider(o, RemotePolicy.builder().time(time).build())
                .open(Location.parse("az://models/m.safetensors?snapshot=" + snapshot))) {
            assertEquals(10, source.read(0, ByteBuffer.allocate(10)));
            assertEquals(new SourceIdentity("0x8DA1", snapshot, null, null, null), source.identity());
            assertEquals(source.identity().toAttributes(), source.attributes());
            assertEquals(java.util.Set.of(SourceIdentity.ETAG, SourceIdentity.VERSION), source.attributes().keySet(),
                    "only the keys SourceIdentity declares");
        }
    }

    @Test
    void aVersionIdIsSentOnEveryRequestAndAnotherReportedVersionIsSourceChanged() throws Exception {
        stub(range(0, 10, 10, ETAG).withHeader("x-ms-version-id", "2026-01-01T00:00:00.0000000Z"));
        AzureClientOptions o = AzureClientOptions.builder().account(ACCOUNT).key(KEY)
                .endpoint("http://127.0.0.1:" + server.port() + "/" + ACCOUNT).entraId(false).build();
        AzureSourceProvider provider = new AzureSourceProvider(o, RemotePolicy.builder().time(time).build());
        try (AzureSource pinned = (AzureSource) provider.open(
                Location.parse("az://models/m.safetensors?versionid=2026-01-01T00:00:00.0000000Z"))) {
            byte[] got = new byte[10];
            assertEquals(10, pinned.read(0, ByteBuffer.wrap(got)));
            assertArrayEquals(new byte[10], got);
            assertEquals("2026-01-01T00:00:00.0000000Z", pinned.attributes().get("version"));
        }
        assertEquals("2026-01-01T00:00:00.0000000Z", requests().get(0).queryParameter("versionid").firstValue());
        try (AzureSource other = (AzureSource) provider.open(
                Location.parse("az://models/m.safetensors?versionid=2025-01-01T00:00:00.0000000Z"))) {
            SourceChangedException e = assertThrows(SourceChangedException.class,
                    () -> other.read(0, ByteBuffer.allocate(10)));
            assertEquals(ErrorCode.SOURCE_CHANGED, e.code());
        }
        assertNull(requests().get(0).getHeader("If-Match"));
    }

    private static ResponseDefinitionBuilder range(long position, int length, long total, String etag) {
        return aResponse().withStatus(206).withHeader("ETag", etag)
                .withHeader("Content-Range", "bytes " + position + "-" + (position + length - 1) + "/" + total)
                .withBody(new byte[length]);
    }
}
