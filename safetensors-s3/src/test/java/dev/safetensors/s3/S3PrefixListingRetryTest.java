package dev.safetensors.s3;

import com.github.tomakehurst.wiremock.stubbing.Scenario;
import dev.safetensors.ErrorCode;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.SourceStatistics;
import dev.safetensors.StorageException;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.testing.ManualTime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ListObjectsV2} pages answered 503 on the wire are retried by the provider's {@link RemotePolicy} (the S3
 * client itself never retries), each attempt one request the server sees.
 */
class S3PrefixListingRetryTest {
    private static final String LIST_PATH = "/" + WireMockS3.BUCKET + "/?";
    private static final String SLOW_DOWN = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown</Code>"
            + "<Message>Please reduce your request rate.</Message></Error>";
    private static final String PAGE = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
            + "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>models</Name>"
            + "<Prefix>run/</Prefix><KeyCount>1</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>"
            + "<Contents><Key>run/a.safetensors</Key><Size>10</Size><ETag>\"e1\"</ETag>"
            + "<LastModified>2026-01-01T00:00:00.000Z</LastModified></Contents></ListBucketResult>";

    private static WireMockS3 s3;
    private final ManualTime time = new ManualTime();

    @BeforeAll
    static void start() {
        s3 = new WireMockS3();
    }

    @AfterAll
    static void stop() {
        s3.close();
    }

    @BeforeEach
    void reset() {
        s3.reset();
    }

    private Listing list(int attempts) throws IOException {
        RemotePolicy policy = RemotePolicy.builder().maxAttempts(attempts).time(time).build();
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
        assertEquals(1, time.sleeps().size());
        Duration slept = time.sleeps().get(0);
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
        assertEquals(2, time.sleeps().size());
    }

    @Test
    void aPageAnswered501IsNotAskedAgain() throws IOException {
        answer(501);
        try (Listing listing = list(5)) {
            StorageException e = assertThrows(StorageException.class, listing::hasNext);
            assertEquals(ErrorCode.SERVER_ERROR, e.code());
        }
        assertEquals(1, listRequests());
        assertEquals(List.of(), time.sleeps());
    }
}
