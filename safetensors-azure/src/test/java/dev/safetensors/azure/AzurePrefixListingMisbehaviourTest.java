package dev.safetensors.azure;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import dev.safetensors.ErrorCode;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.SourceAccessDeniedException;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.StorageException;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.testing.ManualTime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.absent;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A WireMock server that plays List Blobs and misbehaves: every bad page is a coded failure, never a hang. */
class AzurePrefixListingMisbehaviourTest {
    private static final String ACCOUNT = "acct";
    private static final String KEY = Base64.getEncoder().encodeToString("key-that-never-shows-0123456789".getBytes());
    private static final String CONTAINER_PATH = "/" + ACCOUNT + "/models";

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

    private Listing list(ListOptions options) throws IOException {
        AzureClientOptions o = AzureClientOptions.builder().key(KEY).account(ACCOUNT)
                .endpoint("http://127.0.0.1:" + server.port() + "/" + ACCOUNT).entraId(false).build();
        return new AzureSourceProvider(o, policy(5)).list(Location.parse("az://models/p/"), options);
    }

    /** @return the policy of these tests: its waits recorded on {@link #time}, never slept */
    private RemotePolicy policy(int attempts) {
        return RemotePolicy.builder().maxAttempts(attempts).time(time).build();
    }

    /** A List Blobs page of the blobs named, with the marker given (or none). */
    private static String page(String nextMarker, String... blobs) {
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"utf-8\"?><EnumerationResults"
                + " ServiceEndpoint=\"http://127.0.0.1/acct/\" ContainerName=\"models\"><Prefix>p/</Prefix><Blobs>");
        for (String b : blobs) {
            xml.append("<Blob><Name>").append(b).append("</Name><Properties><Last-Modified>Mon, 01 Dec 2025 00:00:00"
                    + " GMT</Last-Modified><Etag>0x8DA1</Etag><Content-Length>100</Content-Length><BlobType>BlockBlob"
                    + "</BlobType></Properties></Blob>");
        }
        xml.append("</Blobs>");
        if (nextMarker != null) {
            xml.append("<NextMarker>").append(nextMarker).append("</NextMarker>");
        }
        return xml.append("</EnumerationResults>").toString();
    }

    private static void answer(String body) {
        server.stubFor(get(urlPathEqualTo(CONTAINER_PATH)).withQueryParam("comp", equalTo("list"))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/xml")
                        .withBody(body)));
    }

    private static int listRequests() {
        return server.findAll(getRequestedFor(urlPathEqualTo(CONTAINER_PATH))).size();
    }

    private static <T extends IOException> T drainFails(Class<T> type, Listing listing) {
        return assertThrows(type, () -> {
            while (listing.hasNext()) {
                listing.next();
            }
        });
    }

    @Test
    void pagesAreFollowedByTheirMarkersAndTheBlobsBecomeEntries() throws Exception {
        server.stubFor(get(urlPathEqualTo(CONTAINER_PATH)).withQueryParam("comp", equalTo("list"))
                .withQueryParam("marker", absent()).willReturn(aResponse().withStatus(200)
                        .withHeader("Content-Type", "application/xml")
                        .withBody(page("m1", "p/a.safetensors", "p/b.safetensors"))));
        server.stubFor(get(urlPathEqualTo(CONTAINER_PATH)).withQueryParam("comp", equalTo("list"))
                .withQueryParam("marker", equalTo("m1")).willReturn(aResponse().withStatus(200)
                        .withHeader("Content-Type", "application/xml").withBody(page(null, "p/c d.safetensors"))));
        try (Listing listing = list(ListOptions.DEFAULT.withRecursive(true).withPageSize(2))) {
            ListEntry a = listing.next();
            assertEquals("az://models/p/a.safetensors", a.location().text());
            assertEquals(100, a.size());
            assertEquals("0x8DA1", a.version().orElseThrow());
            assertTrue(a.lastModified().isPresent());
            assertEquals("az://models/p/b.safetensors", listing.next().location().text());
            assertEquals("az://models/p/c%20d.safetensors", listing.next().location().text());
            assertEquals(false, listing.hasNext());
            assertEquals(2, listing.cost().requests());
        }
        assertEquals(2, listRequests());
        assertEquals("2", server.findAll(getRequestedFor(urlPathEqualTo(CONTAINER_PATH))).get(0)
                .queryParameter("maxresults").firstValue());
    }

    @Test
    void aNameWithADotDotSegmentIsAnInvalidNameEntryNeverTheBlobItResolvesTo() throws Exception {
        answer(page(null, "p/a/../secret.safetensors", "p/b.safetensors"));
        try (Listing listing = list(ListOptions.DEFAULT.withRecursive(true))) {
            ListEntry dots = listing.next();
            assertEquals(ListEntry.Kind.INVALID_NAME, dots.kind(), dots.toString());
            assertEquals(ListEntry.Kind.FILE, listing.next().kind());
            assertFalse(listing.hasNext());
        }
    }

    @Test
    void aCycleOfSixtyFiveMarkersEndsWhenItsFirstBlobComesBack() throws Exception {
        // one marker past what is remembered: only the order of the names shows the cycle
        int cycle = dev.safetensors.spi.PagedListing.REMEMBERED_TOKENS + 1;
        for (int i = 0; i < cycle; i++) {
            server.stubFor(get(urlPathEqualTo(CONTAINER_PATH)).withQueryParam("comp", equalTo("list"))
                    .withQueryParam("marker", i == 0 ? absent()
                            : equalTo("m" + i))
                    .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/xml")
                            .withBody(page("m" + ((i + 1) % cycle), String.format("p/k%03d.safetensors", i)))));
        }
        server.stubFor(get(urlPathEqualTo(CONTAINER_PATH)).withQueryParam("comp", equalTo("list"))
                .withQueryParam("marker", equalTo("m0"))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/xml")
                        .withBody(page("m1", "p/k000.safetensors"))));
        try (Listing listing = list(ListOptions.DEFAULT.withPageSize(5))) {
            StorageException e = drainFails(StorageException.class, listing);
            assertEquals(ErrorCode.INVALID_LISTING, e.code(), e.getMessage());
        }
        assertEquals(cycle + 1, listRequests(), "caught on the first name listed again");
    }

    @Test
    void aRepeatedMarkerIsAnInvalidListingNotAHang() throws Exception {
        answer(page("m1", "p/a.safetensors"));
        try (Listing listing = list(ListOptions.DEFAULT.withPageSize(5))) {
            StorageException e = drainFails(StorageException.class, listing);
            assertEquals(ErrorCode.INVALID_LISTING, e.code(), e.getMessage());
        }
        assertEquals(2, listRequests(), "found on the second page: the key comes again (and so does the marker)");
    }

    @Test
    void aMalformedPageIsAnInvalidListing() throws Exception {
        answer("<?xml version=\"1.0\"?><EnumerationResults><Blobs><Blob><Name>p/a.safe");
        try (Listing listing = list(ListOptions.DEFAULT)) {
            StorageException e = drainFails(StorageException.class, listing);
            assertEquals(ErrorCode.INVALID_LISTING, e.code(), e.toString());
        }
        assertEquals(1, listRequests());
    }

    @Test
    void aBlobOutsideThePrefixIsAnInvalidListing() throws Exception {
        answer(page(null, "q/elsewhere.safetensors"));
        try (Listing listing = list(ListOptions.DEFAULT)) {
            assertEquals(ErrorCode.INVALID_LISTING, drainFails(StorageException.class, listing).code());
        }
    }

    @Test
    void aPageLargerThanAskedIsAnInvalidListing() throws Exception {
        answer(page(null, "p/a", "p/b", "p/c"));
        try (Listing listing = list(ListOptions.DEFAULT.withPageSize(2))) {
            assertEquals(ErrorCode.INVALID_LISTING, drainFails(StorageException.class, listing).code());
        }
    }

    @Test
    void aRefusedListingIsAccessDeniedAndOnlyOneRequest() throws Exception {
        server.stubFor(get(urlPathEqualTo(CONTAINER_PATH)).willReturn(aResponse().withStatus(403)
                .withHeader("x-ms-error-code", "AuthorizationPermissionMismatch")));
        try (Listing listing = list(ListOptions.DEFAULT)) {
            assertEquals(ErrorCode.ACCESS_DENIED, drainFails(SourceAccessDeniedException.class, listing).code());
        }
        assertEquals(1, listRequests(), "no retry of a refusal");
    }

    @Test
    void aMissingContainerIsNotFound() throws Exception {
        server.stubFor(get(urlPathEqualTo(CONTAINER_PATH)).willReturn(aResponse().withStatus(404)
                .withHeader("x-ms-error-code", "ContainerNotFound")));
        try (Listing listing = list(ListOptions.DEFAULT)) {
            assertEquals(ErrorCode.NOT_FOUND, drainFails(SourceNotFoundException.class, listing).code());
        }
    }

    @Test
    void aListingFailureQuotesTheServiceErrorCodeAndTheHostAndNoSasSignature() throws Exception {
        String signature = "SAS-SIGNATURE-NEVER-SHOWN";
        AzureClientOptions o = AzureClientOptions.builder().sasToken("sv=2021-08-06&sp=rl&sig=" + signature)
                .account(ACCOUNT).endpoint("http://127.0.0.1:" + server.port() + "/" + ACCOUNT).entraId(false)
                .build();
        String from = " from 127.0.0.1:" + server.port() + ")";
        server.stubFor(get(urlPathEqualTo(CONTAINER_PATH)).willReturn(aResponse().withStatus(404)
                .withHeader("x-ms-error-code", "ContainerNotFound")));
        try (Listing listing = new AzureSourceProvider(o, policy(2)).list(Location.parse("az://models/p/"),
                ListOptions.DEFAULT)) {
            SourceNotFoundException e = drainFails(SourceNotFoundException.class, listing);
            assertEquals(ErrorCode.NOT_FOUND, e.code());
            assertTrue(e.getMessage().contains("answered 404 (ContainerNotFound" + from), e.getMessage());
            assertFalse(e.getMessage().contains(signature), e.getMessage());
        }
        server.stubFor(get(urlPathEqualTo(CONTAINER_PATH)).willReturn(aResponse().withStatus(403)
                .withHeader("x-ms-error-code", "AuthorizationPermissionMismatch")));
        try (Listing listing = new AzureSourceProvider(o, policy(2)).list(Location.parse("az://models/p/"),
                ListOptions.DEFAULT)) {
            SourceAccessDeniedException e = drainFails(SourceAccessDeniedException.class, listing);
            assertTrue(e.getMessage().contains("answered 403 (AuthorizationPermissionMismatch" + from),
                    e.getMessage());
            assertFalse(e.getMessage().contains(signature), e.getMessage());
        }
        server.stubFor(get(urlPathEqualTo(CONTAINER_PATH)).willReturn(aResponse().withStatus(400)));
        try (Listing listing = new AzureSourceProvider(o, policy(2)).list(Location.parse("az://models/p/"),
                ListOptions.DEFAULT)) {
            StorageException e = drainFails(StorageException.class, listing);
            assertTrue(e.getMessage().contains("answered 400 (from 127.0.0.1:" + server.port() + ")"),
                    e.getMessage());
        }
    }

    @Test
    void aBrokenConnectionIsANetworkFailureThatNamesNoSasSignature() throws Exception {
        String signature = "SAS-SIGNATURE-NEVER-SHOWN";
        server.stubFor(get(urlPathEqualTo(CONTAINER_PATH)).willReturn(aResponse()
                .withFault(Fault.CONNECTION_RESET_BY_PEER)));
        AzureClientOptions o = AzureClientOptions.builder().sasToken("sv=2021-08-06&sp=rl&sig=" + signature)
                .account(ACCOUNT).endpoint("http://127.0.0.1:" + server.port() + "/" + ACCOUNT).entraId(false)
                .build();
        try (Listing listing = new AzureSourceProvider(o, policy(2)).list(Location.parse("az://models/p/"),
                ListOptions.DEFAULT)) {
            StorageException e = drainFails(StorageException.class, listing);
            assertEquals(ErrorCode.NETWORK, e.code(), e.toString());
            assertFalse(e.getMessage().contains(signature), e.getMessage());
        }
        // two attempts of the policy; the JDK HttpClient resends an idempotent GET once when the connection breaks
        // before any answer; the SDK's retry policy, which would try 4 times with waits, is not in the pipeline
        assertEquals(4, listRequests());
        assertEquals(1, time.sleeps().size());
    }

    @Test
    void aPageAnswered503IsAskedAgainWithItsMarker() throws Exception {
        server.stubFor(get(urlPathEqualTo(CONTAINER_PATH)).withQueryParam("comp", equalTo("list"))
                .withQueryParam("marker", absent())
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/xml")
                        .withBody(page("m1", "p/a.safetensors"))));
        server.stubFor(get(urlPathEqualTo(CONTAINER_PATH)).withQueryParam("marker", equalTo("m1"))
                .inScenario("second page").whenScenarioStateIs(Scenario.STARTED).willSetStateTo("answered")
                .willReturn(aResponse().withStatus(503).withHeader("Retry-After", "2")));
        server.stubFor(get(urlPathEqualTo(CONTAINER_PATH)).withQueryParam("marker", equalTo("m1"))
                .inScenario("second page").whenScenarioStateIs("answered")
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/xml")
                        .withBody(page(null, "p/b.safetensors"))));
        try (Listing listing = list(ListOptions.DEFAULT.withRecursive(true))) {
            int n = 0;
            while (listing.hasNext()) {
                listing.next();
                n++;
            }
            assertEquals(2, n);
            assertEquals(2, listing.cost().requests());
            assertEquals(3, listing.cost().exchanges());
        }
        assertEquals(3, listRequests());
        assertEquals(List.of(Duration.ofSeconds(2)), time.sleeps(), "the server's Retry-After");
    }

    @Test
    void closingCancelsBeforeTheNextRequest() throws Exception {
        answer(page("m1", "p/a.safetensors"));
        Listing listing = list(ListOptions.DEFAULT);
        assertTrue(listing.hasNext());
        listing.next();
        listing.close();
        assertEquals(false, listing.hasNext());
        assertEquals(1, listRequests());
    }
}
