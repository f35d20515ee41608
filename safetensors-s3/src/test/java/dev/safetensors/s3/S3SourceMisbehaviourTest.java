package dev.safetensors.s3;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import dev.safetensors.ErrorCode;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RangeNotHonouredException;
import dev.safetensors.SourceAccessDeniedException;
import dev.safetensors.SourceChangedException;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.SourceStatistics;
import dev.safetensors.StorageException;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.fixtures.ScriptedRangeServer;
import dev.safetensors.testing.ManualTime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import software.amazon.awssdk.services.s3.S3Client;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
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
import static com.github.tomakehurst.wiremock.client.WireMock.head;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Servers that answer something other than what was asked, objects that change, and the errors S3 reports, for
 * reads and for {@code ListObjectsV2} pages.
 *
 * <p>Alone ({@code @Isolated}): it captures every record of the library's loggers through the root logger, and asserts
 * none is at INFO or above.
 */
@Isolated
class S3SourceMisbehaviourTest {
    private static final String ETAG = "\"e1\"";
    private static final int LARGE = 8 * 1024 * 1024;

    private static final long HANG_GUARD_SECONDS = 60;
    private static final String LIST_PATH = "/" + WireMockS3.BUCKET + "/?";
    private static final String SLOW_DOWN = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown</Code>"
            + "<Message>Please reduce your request rate.</Message></Error>";
    private static final String PAGE = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
            + "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>models</Name>"
            + "<Prefix>run/</Prefix><KeyCount>1</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>"
            + "<Contents><Key>run/a.safetensors</Key><Size>10</Size><ETag>\"e1\"</ETag>"
            + "<LastModified>2026-01-01T00:00:00.000Z</LastModified></Contents></ListBucketResult>";

    private static WireMockS3 s3;
    /** The clock of the listings' policy: its waits recorded, never slept. */
    private final ManualTime listingTime = new ManualTime();

    @BeforeAll
    static void start() {
        s3 = new WireMockS3();
    }

    @AfterAll
    static void stop() {
        s3.close();
    }

    @BeforeEach
    void reset() throws Exception {
        s3.reset();
    }

    /**
     * Opens {@code key} on a server that answers with an endless body, reads it as {@code read} does, and returns
     * what the read threw, after checking that the client hung up having let the server send no more than socket
     * buffers hold: the body was abandoned, not drained (a client that drained would never hang up; the wait for the
     * hang-up is only a guard against that).
     */
    private static RangeNotHonouredException abandoned(ScriptedRangeServer endless, int length, long bytesRead)
            throws Exception {
        try (endless; S3Client client = WireMockS3.client(endless.endpoint());
             S3Source source = S3Source.open(client, new S3Location(WireMockS3.BUCKET, "endless", null),
                     RemotePolicy.builder().maxAttempts(1).time(new ManualTime()).build())) {
            RangeNotHonouredException e = assertThrows(RangeNotHonouredException.class,
                    () -> source.read(0, ByteBuffer.allocate(length)));
            long written = endless.awaitQuiet(Duration.ofSeconds(HANG_GUARD_SECONDS));
            assertTrue(written < ScriptedRangeServer.ABANDONED_AT_MOST, "the server sent " + written + " body bytes");
            assertEquals(bytesRead, source.statistics().bytesRead());
            return e;
        }
    }

    @Test
    void aServerThatIgnoresRangeAndSendsAnEndlessWholeBodyIsRefusedWithoutDrainingIt() throws Exception {
        RangeNotHonouredException e = abandoned(ScriptedRangeServer.endless(200, "ETag: " + ETAG,
                "Transfer-Encoding: chunked"), 128 * 1024, 0);
        assertTrue(e.getMessage().contains("status 200"), e.getMessage());
    }

    @Test
    void aBodyLongerThanItsContentRangeIsCutAfterTheAskedBytes() throws Exception {
        RangeNotHonouredException e = abandoned(ScriptedRangeServer.endless(206, "ETag: " + ETAG,
                "Content-Range: bytes 0-99/" + LARGE, "Transfer-Encoding: chunked"), 100, 100);
        assertTrue(e.getMessage().contains("more than the 100 bytes"), e.getMessage());
    }

    @Test
    void aContentRangeWithAnotherStartIsRefused() throws Exception {
        assertRangeRefused("bytes 1-100/1000", 100);
    }

    @Test
    void aContentRangeWithAnotherEndIsRefused() throws Exception {
        assertRangeRefused("bytes 0-98/1000", 99);
    }

    @Test
    void aMalformedContentRangeIsRefused() throws Exception {
        assertRangeRefused("bytes 0--1/0", 100);
    }

    @Test
    void aMissingContentRangeIsRefused() throws Exception {
        assertRangeRefused(null, 100);
    }

    @Test
    void aContentRangeWithAnotherTotalThanSeenBeforeIsRefused() throws Exception {
        s3.put("k", StoredObject.of(new byte[1000], ETAG));
        try (S3Source source = s3.open("k")) {
            source.read(0, ByteBuffer.allocate(10));
            stubGet("k", aResponse().withStatus(206).withHeader("ETag", ETAG)
                    .withHeader("Content-Range", "bytes 100-109/2000").withBody(new byte[10]));

            RangeNotHonouredException e = assertThrows(RangeNotHonouredException.class,
                    () -> source.read(100, ByteBuffer.allocate(10)));
            assertTrue(e.getMessage().contains("size changed from 1000 to 2000"), e.getMessage());
        }
    }

    @Test
    void aShortBodyIsResumedFromItsFirstMissingByteAtTheSameVersion() throws Exception {
        stubGet("short", aResponse().withStatus(206).withHeader("ETag", ETAG)
                .withHeader("Content-Range", "bytes 0-99/1000").withBody(new byte[50]));
        s3.server.stubFor(get(urlPathEqualTo("/" + WireMockS3.BUCKET + "/short")).atPriority(0)
                .withHeader("Range", equalTo("bytes=50-99")).withHeader("If-Match", equalTo(ETAG))
                .willReturn(aResponse().withStatus(206).withHeader("ETag", ETAG)
                        .withHeader("Content-Range", "bytes 50-99/1000").withBody(new byte[50])));
        try (S3Source source = s3.open("short")) {
            assertEquals(100, source.read(0, ByteBuffer.allocate(100)));
            assertEquals(1, source.statistics().requests(), "the resumption is an attempt of the same request");
        }
    }

    @Test
    void anObjectReplacedBetweenReadsFailsTheIfMatchAsSourceChanged() throws Exception {
        s3.put("k", StoredObject.of(new byte[1000], ETAG));
        try (S3Source source = s3.open("k")) {
            source.read(0, ByteBuffer.allocate(10));
            s3.put("k", StoredObject.of(new byte[1000], "\"e2\""));

            SourceChangedException e = assertThrows(SourceChangedException.class,
                    () -> source.read(10, ByteBuffer.allocate(10)));
            assertEquals(ErrorCode.SOURCE_CHANGED, e.code());
            assertEquals("s3://models/k", e.source());
            assertTrue(e.getMessage().contains("412"), e.getMessage());
            assertNoCredentials(e);
        }
    }

    @Test
    void aServerThatIgnoresIfMatchAndSendsAnotherEtagIsCaught() throws Exception {
        s3.put("k", StoredObject.of(new byte[1000], ETAG));
        try (S3Source source = s3.open("k")) {
            source.read(0, ByteBuffer.allocate(10));
            stubGet("k", aResponse().withStatus(206).withHeader("ETag", "\"e2\"")
                    .withHeader("Content-Range", "bytes 10-19/1000").withBody(new byte[10]));

            SourceChangedException e = assertThrows(SourceChangedException.class,
                    () -> source.read(10, ByteBuffer.allocate(10)));
            assertTrue(e.getMessage().contains("the ETag was \"e1\" and is now \"e2\""), e.getMessage());
        }
    }

    @Test
    void aServerThatIgnoresIfMatchAndSendsALongerObjectIsASourceChangeNotARangeError() throws Exception {
        s3.put("k", StoredObject.of(new byte[1000], ETAG));
        try (S3Source source = s3.open("k")) {
            source.read(0, ByteBuffer.allocate(10));
            stubGet("k", aResponse().withStatus(206).withHeader("ETag", "\"e2\"")
                    .withHeader("Content-Range", "bytes 10-19/5000").withBody(new byte[10]));

            assertThrows(SourceChangedException.class, () -> source.read(10, ByteBuffer.allocate(10)));
        }
    }

    @Test
    void aMissingKeyIsNoSuchFileWithTheS3Name() throws Exception {
        try (S3Source source = s3.open("missing")) {
            SourceNotFoundException get = assertThrows(SourceNotFoundException.class,
                    () -> source.read(0, ByteBuffer.allocate(10)));
            assertEquals("s3://models/missing", get.getFile());
            assertTrue(get.getMessage().contains("NoSuchKey"), get.getMessage());
            NoSuchFileException size = assertThrows(NoSuchFileException.class, source::size);
            assertEquals("s3://models/missing", size.getFile());
            assertNoCredentials(get);
            assertNoCredentials(size);
        }
    }

    @Test
    void aMissingBucketIsNoSuchFile() throws Exception {
        stubGet("k", aResponse().withStatus(404).withHeader("Content-Type", "application/xml")
                .withBody(S3ObjectsTransformer.errorXml("NoSuchBucket")));
        try (S3Source source = s3.open("k")) {
            NoSuchFileException e = assertThrows(NoSuchFileException.class,
                    () -> source.read(0, ByteBuffer.allocate(10)));
            assertTrue(e.getMessage().contains("NoSuchBucket"), e.getMessage());
        }
    }

    @Test
    void aRefusalIsAccessDeniedWithoutCredentialsInTheMessage() throws Exception {
        stubGet("secret", aResponse().withStatus(403).withHeader("Content-Type", "application/xml")
                .withBody(S3ObjectsTransformer.errorXml("AccessDenied")));
        s3.server.stubFor(head(urlPathEqualTo("/models/secret")).atPriority(1)
                .willReturn(aResponse().withStatus(403)));
        try (S3Source source = s3.open("secret")) {
            SourceAccessDeniedException get = assertThrows(SourceAccessDeniedException.class,
                    () -> source.read(0, ByteBuffer.allocate(10)));
            assertEquals("s3://models/secret", get.getFile());
            assertTrue(get.getMessage().contains("AccessDenied"), get.getMessage());
            AccessDeniedException size = assertThrows(AccessDeniedException.class, source::size);
            assertNoCredentials(get);
            assertNoCredentials(size);
        }
    }

    @Test
    void aReadStartingPastTheEndOfAnObjectOfUnknownSizeIsTheEnd() throws Exception {
        s3.put("k", StoredObject.of(new byte[100], ETAG));
        try (S3Source source = s3.open("k")) {
            assertEquals(-1, source.read(500, ByteBuffer.allocate(10)), "as on every backend");
            assertEquals(1, s3.requests().size(), "a 416 is not retried");
        }
    }

    @Test
    void aServerErrorIsRetriedByTheClient() throws Exception {
        byte[] content = SampleCheckpoint.file(64, 100);
        s3.put("flaky", StoredObject.of(content, ETAG));
        s3.server.stubFor(get(urlPathEqualTo("/models/flaky")).atPriority(1)
                .inScenario("flaky").whenScenarioStateIs(Scenario.STARTED).willSetStateTo("recovered")
                .willReturn(aResponse().withStatus(503).withHeader("Content-Type", "application/xml")
                        .withBody(S3ObjectsTransformer.errorXml("SlowDown"))));
        try (S3Source source = s3.open("flaky")) {
            ByteBuffer dst = ByteBuffer.allocate(content.length);
            assertEquals(content.length, source.read(0, dst));
            assertArrayEquals(content, dst.array());
            assertEquals(2, s3.requests().size(), "one 503, one retry");
            assertEquals(new SourceStatistics(1, content.length, 2), source.statistics(),
                    "one read, two HTTP requests: the SDK's retry is counted");
        }
    }

    @Test
    void aRetryIsLoggedAtDebugOnlySoStderrStaysQuiet() throws Exception {
        byte[] content = SampleCheckpoint.file(64, 100);
        s3.put("logged", StoredObject.of(content, ETAG));
        s3.server.stubFor(get(urlPathEqualTo("/models/logged")).atPriority(1)
                .inScenario("logged").whenScenarioStateIs(Scenario.STARTED).willSetStateTo("recovered")
                .willReturn(aResponse().withStatus(503).withHeader("Content-Type", "application/xml")
                        .withBody(S3ObjectsTransformer.errorXml("SlowDown"))));
        List<LogRecord> records = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLoggerName() != null && record.getLoggerName().startsWith("dev.safetensors")) {
                    records.add(record);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger root = Logger.getLogger("");
        Logger spi = Logger.getLogger("dev.safetensors.spi");
        Level before = spi.getLevel();
        spi.setLevel(Level.ALL);
        capture.setLevel(Level.ALL);
        root.addHandler(capture);
        try (S3Source source = s3.open("logged")) {
            assertEquals(content.length, source.read(0, ByteBuffer.allocate(content.length)));
        } finally {
            root.removeHandler(capture);
            spi.setLevel(before);
        }
        assertTrue(records.stream().anyMatch(r -> r.getMessage().contains("answered 503, retrying in")),
                "the retry is logged");
        assertTrue(records.stream().allMatch(r -> r.getLevel().intValue() < Level.INFO.intValue()),
                "nothing at INFO or above, which the JDK's default handler would print to stderr");
    }

    @Test
    void aLastingServerErrorFailsAfterBoundedRetries() throws Exception {
        stubGet("down", aResponse().withStatus(500).withHeader("Content-Type", "application/xml")
                .withBody(S3ObjectsTransformer.errorXml("InternalError")));
        int sleptBefore = s3.time.sleeps().size();
        try (S3Source source = s3.open("down")) {
            StorageException e = assertThrows(StorageException.class, () -> source.read(0, ByteBuffer.allocate(10)));
            assertEquals(ErrorCode.SERVER_ERROR, e.code());
            assertTrue(e.getMessage().contains("answered 500 InternalError"), e.getMessage());
            int attempts = s3.requests().size();
            assertEquals(RemotePolicy.DEFAULT.maxAttempts(), attempts, "the shared policy's attempts, no more");
            assertEquals(attempts - 1, s3.time.sleeps().size() - sleptBefore, "a backoff between attempts, never a real sleep");
            assertEquals(new SourceStatistics(1, 0, attempts), source.statistics(),
                    "a call that failed still reports its attempts");
            assertNoCredentials(e);
        }
    }

    @Test
    void aLongRetryAfterFailsAtOnceAndTheSdkNeverWaitsOnIt() throws Exception {
        stubGet("busy", aResponse().withStatus(503).withHeader("Retry-After", "3600")
                .withHeader("Content-Type", "application/xml").withBody(S3ObjectsTransformer.errorXml("SlowDown")));
        int sleptBefore = s3.time.sleeps().size();
        try (S3Source source = s3.open("busy")) {
            StorageException e = assertThrows(StorageException.class, () -> source.read(0, ByteBuffer.allocate(10)));
            assertEquals(ErrorCode.SERVER_ERROR, e.code());
            assertTrue(e.getMessage().contains("asked to wait 3600 seconds"), e.getMessage());
        }
        assertEquals(1, s3.requests().size(), "one attempt: the SDK's own retries are off");
        assertEquals(sleptBefore, s3.time.sleeps().size(), "no wait at all");
    }

    @Test
    void anOpenRangePastTheEndOfAnObjectOfUnknownSizeFailsWithEof() throws Exception {
        s3.put("k", StoredObject.of(new byte[100], ETAG));
        try (S3Source source = s3.open("k")) {
            assertThrows(EOFException.class, () -> source.openRange(50, 100));
        }
    }

    @Test
    void closingATensorStreamEarlyAbandonsTheRestOfTheBody() throws Exception {
        long size = ScriptedRangeServer.TERABYTE;
        try (ScriptedRangeServer endless = ScriptedRangeServer.endless(206, "ETag: " + ETAG,
                "Content-Range: bytes 0-" + (size - 1) + "/" + size, "Transfer-Encoding: chunked");
             S3Client client = WireMockS3.client(endless.endpoint());
             S3Source source = S3Source.open(client, new S3Location(WireMockS3.BUCKET, "endless", null),
                     RemotePolicy.builder().maxAttempts(1).time(new ManualTime()).build())) {
            try (ReadableByteChannel tensor = source.openRange(0, size)) {
                assertTrue(tensor.read(ByteBuffer.allocate(1000)) > 0);
            }
            long written = endless.awaitQuiet(Duration.ofSeconds(HANG_GUARD_SECONDS));
            assertTrue(written < ScriptedRangeServer.ABANDONED_AT_MOST, "the server sent " + written + " body bytes");
        }
    }

    private void assertRangeRefused(String contentRange, int bodyBytes) throws Exception {
        ResponseDefinitionBuilder response = aResponse().withStatus(206).withHeader("ETag", ETAG)
                .withBody(new byte[bodyBytes]);
        if (contentRange != null) {
            response.withHeader("Content-Range", contentRange);
        }
        stubGet("k", response);
        try (S3Source source = s3.open("k")) {
            RangeNotHonouredException e = assertThrows(RangeNotHonouredException.class,
                    () -> source.read(0, ByteBuffer.allocate(100)));
            assertEquals(ErrorCode.RANGE_NOT_HONOURED, e.code());
            assertEquals("s3://models/k", e.source());
            assertEquals(0, source.statistics().bytesRead());
        }
    }

    /** After an aborted response, the client still works: the connection was closed, not left half-read. */
    private static void assertGoodObjectStillReadable() throws IOException {
        byte[] content = SampleCheckpoint.file(64, 1000);
        s3.put("good", StoredObject.of(content, ETAG));
        try (S3Source source = s3.open("good")) {
            ByteBuffer dst = ByteBuffer.allocate(content.length);
            source.readFully(0, dst);
            assertArrayEquals(content, dst.array());
        }
    }

    private static void stubGet(String key, ResponseDefinitionBuilder response) {
        s3.server.stubFor(get(urlPathEqualTo("/" + WireMockS3.BUCKET + "/" + key)).atPriority(1)
                .willReturn(response));
    }

    private static void assertNoCredentials(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String message = String.valueOf(t.getMessage());
            assertFalse(message.contains(WireMockS3.SECRET_KEY), message);
            assertFalse(message.contains("Signature="), message);
            assertFalse(message.contains("Credential="), message);
            assertFalse(Arrays.stream(t.getSuppressed()).anyMatch(s -> String.valueOf(s.getMessage())
                    .contains(WireMockS3.SECRET_KEY)), message);
        }
    }

    // ListObjectsV2 pages: retried by the provider's policy, the S3 client itself never retries

    private Listing list(int attempts) throws IOException {
        RemotePolicy policy = RemotePolicy.builder().maxAttempts(attempts).time(listingTime).build();
        return new S3SourceProvider(s3.client, policy).list(Location.parse("s3://models/run/"), ListOptions.DEFAULT);
    }

    /** Answers the listing with the statuses given in turn, then with {@link #PAGE}. */
    private void answer(int... statuses) {
        String state = Scenario.STARTED;
        for (int i = 0; i < statuses.length; i++) {
            String next = "attempt " + (i + 2);
            s3.server.stubFor(get(urlPathMatching(LIST_PATH)).withQueryParam("list-type", equalTo("2"))
                    .inScenario("listing").whenScenarioStateIs(state).willSetStateTo(next)
                    .willReturn(aResponse().withStatus(statuses[i]).withHeader("Content-Type", "application/xml")
                            .withBody(SLOW_DOWN)));
            state = next;
        }
        s3.server.stubFor(get(urlPathMatching(LIST_PATH)).withQueryParam("list-type", equalTo("2"))
                .inScenario("listing").whenScenarioStateIs(state)
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/xml").withBody(PAGE)));
    }

    private int listRequests() {
        return s3.server.findAll(getRequestedFor(urlPathMatching(LIST_PATH))).size();
    }

    @Test
    void aPageAnswered503IsAskedAgainAndTheListingCompletes() throws IOException {
        answer(503);
        List<ListEntry> entries = new ArrayList<>();
        try (Listing listing = list(5)) {
            while (listing.hasNext()) {
                entries.add(listing.next());
            }
            assertEquals(new SourceStatistics(1, 0, 2), listing.cost());
        }
        assertEquals(1, entries.size());
        assertEquals("s3://models/run/a.safetensors", entries.get(0).location().text());
        assertEquals(2, listRequests(), "one retry on the wire, none by the SDK");
        assertEquals(1, listingTime.sleeps().size());
        Duration slept = listingTime.sleeps().get(0);
        Duration step = RemotePolicy.DEFAULT.backoffBase();
        assertTrue(slept.compareTo(step.dividedBy(2)) >= 0 && slept.compareTo(step) <= 0, slept.toString());
    }

    @Test
    void aPageUnavailableOnEveryAttemptEndsAsAServerError() throws IOException {
        answer(503, 503, 503);
        try (Listing listing = list(3)) {
            StorageException e = assertThrows(StorageException.class, listing::hasNext);
            assertEquals(ErrorCode.SERVER_ERROR, e.code());
        }
        assertEquals(3, listRequests());
        assertEquals(2, listingTime.sleeps().size());
    }

    @Test
    void aPageAnswered501IsNotAskedAgain() throws IOException {
        answer(501);
        try (Listing listing = list(5)) {
            StorageException e = assertThrows(StorageException.class, listing::hasNext);
            assertEquals(ErrorCode.SERVER_ERROR, e.code());
        }
        assertEquals(1, listRequests());
        assertEquals(List.of(), listingTime.sleeps());
    }
}
