package dev.safetensors.gcs;

import com.github.tomakehurst.wiremock.stubbing.Scenario;
import com.google.cloud.storage.Storage;
import dev.safetensors.ErrorCode;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.SourceAccessDeniedException;
import dev.safetensors.StorageException;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.testing.ManualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static com.github.tomakehurst.wiremock.client.WireMock.absent;
import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code objects.list} paging against the fake Cloud Storage server: one request per page, pages checked. */
class GcsPrefixListingTest {
    private GcsTestServer server;
    private Storage storage;

    @BeforeEach
    void start() {
        server = new GcsTestServer();
        storage = server.storage(1);
    }

    @AfterEach
    void stop() throws Exception {
        storage.close();
        server.close();
    }

    private static String page(int from, int to, String next) {
        StringBuilder json = new StringBuilder("{\"kind\":\"storage#objects\",\"items\":[");
        for (int i = from; i < to; i++) {
            json.append(i > from ? "," : "").append("{\"kind\":\"storage#object\",\"bucket\":\"models\",\"name\":\"run/m")
                    .append(i).append(".safetensors\",\"size\":\"").append(100 + i).append("\",\"generation\":\"")
                    .append(7 + i).append("\",\"updated\":\"2026-01-01T00:00:00.000Z\"}");
        }
        json.append(']');
        if (next != null) {
            json.append(",\"nextPageToken\":\"").append(next).append('"');
        }
        return json.append('}').toString();
    }

    private void stubPage(String token, String body) {
        server.wireMock.stubFor(get(urlPathEqualTo("/storage/v1/b/models/o"))
                .withQueryParam("pageToken", token == null ? absent() : equalTo(token))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withBody(body)));
    }

    private List<ListEntry> drain(Listing listing) throws Exception {
        List<ListEntry> all = new ArrayList<>();
        while (listing.hasNext()) {
            all.add(listing.next());
        }
        return all;
    }

    @Test
    void aPageAnswered503IsRetriedByThePolicyNotByTheSdk() throws Exception {
        server.wireMock.stubFor(get(urlPathEqualTo("/storage/v1/b/models/o")).inScenario("listing")
                .whenScenarioStateIs(Scenario.STARTED).willSetStateTo("answered")
                .willReturn(aResponse().withStatus(503).withHeader("Content-Type", "application/json")
                        .withBody("{\"error\":{\"code\":503,\"message\":\"Backend Error\"}}")));
        server.wireMock.stubFor(get(urlPathEqualTo("/storage/v1/b/models/o")).inScenario("listing")
                .whenScenarioStateIs("answered")
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withBody(page(0, 2, null))));
        ManualTime time = new ManualTime();
        // a client that would retry by itself: the provider's listings leave its retries out
        try (Storage retrying = server.storage(3);
             Listing listing = new GcsSourceProvider(retrying, RemotePolicy.builder().time(time).build())
                     .list(Location.parse("gs://models/run/"), ListOptions.DEFAULT.withRecursive(true))) {
            assertEquals(2, drain(listing).size());
            assertEquals(1, listing.cost().requests());
            assertEquals(2, listing.cost().exchanges());
        }
        assertEquals(2, server.urls().size());
        assertEquals(1, time.sleeps().size(), "the one retry is the policy's, on its clock");
    }

    @Test
    void pagesAreFollowedWithOneRequestEach() throws Exception {
        stubPage(null, page(0, 3, "t1"));
        stubPage("t1", page(3, 6, "t2"));
        stubPage("t2", page(6, 7, null));
        try (Listing listing = new GcsSourceProvider(storage).list(Location.parse("gs://models/run/"),
                ListOptions.DEFAULT.withRecursive(true).withPageSize(3))) {
            List<ListEntry> all = drain(listing);
            assertEquals(7, all.size());
            assertEquals("gs://models/run/m6.safetensors", all.get(6).location().text());
            assertEquals(106, all.get(6).size());
            assertEquals("13", all.get(6).version().orElseThrow(), "the generation");
            assertEquals(3, listing.cost().requests());
        }
        List<String> urls = server.urls();
        assertEquals(3, urls.size(), urls.toString());
        assertTrue(urls.get(0).contains("prefix=run/") && urls.get(0).contains("maxResults=3"), urls.get(0));
    }

    @Test
    void aRepeatedPageTokenIsAnInvalidListing() throws Exception {
        stubPage(null, page(0, 2, "again"));
        stubPage("again", page(2, 4, "again"));
        try (Listing listing = new GcsSourceProvider(storage).list(Location.parse("gs://models/run/"),
                ListOptions.DEFAULT.withRecursive(true))) {
            StorageException e = assertThrows(StorageException.class, () -> drain(listing));
            assertEquals(ErrorCode.INVALID_LISTING, e.code());
        }
        assertEquals(2, server.urls().size());
    }

    @Test
    void aRefusedListingNamesThePermission() throws Exception {
        server.wireMock.stubFor(get(urlPathEqualTo("/storage/v1/b/models/o")).willReturn(aResponse().withStatus(403)
                .withHeader("Content-Type", "application/json")
                .withBody("{\"error\":{\"code\":403,\"message\":\"no storage.objects.list\"}}")));
        try (Listing listing = new GcsSourceProvider(storage).list(Location.parse("gs://models/run/"),
                ListOptions.DEFAULT)) {
            SourceAccessDeniedException e = assertThrows(SourceAccessDeniedException.class, listing::hasNext);
            assertEquals(ErrorCode.ACCESS_DENIED, e.code());
            assertTrue(e.getMessage().contains("storage.objects.list"), e.getMessage());
        }
    }

    private static String named(String next, String... jsonNames) {
        StringBuilder json = new StringBuilder("{\"kind\":\"storage#objects\",\"items\":[");
        String sep = "";
        for (String name : jsonNames) {
            json.append(sep).append("{\"kind\":\"storage#object\",\"bucket\":\"models\",\"name\":\"")
                    .append(name).append("\",\"size\":\"8\",\"generation\":\"1\"}");
            sep = ",";
        }
        json.append(']');
        if (next != null) {
            json.append(",\"nextPageToken\":\"").append(next).append('"');
        }
        return json.append('}').toString();
    }

    @Test
    void aNameHoldingANulOrALoneSurrogateIsAnInvalidNameEntryNotDroppedNorAnotherObject() throws Exception {
        // JSON escapes: a NUL, and a lone low surrogate that UTF-8 encoding would turn into '?' (the object c?d)
        stubPage(null, named(null, "run/a\\u0000b.safetensors", "run/c\\udc00d.safetensors", "run/ok.safetensors"));
        try (Listing listing = new GcsSourceProvider(storage).list(Location.parse("gs://models/run/"),
                ListOptions.DEFAULT.withRecursive(true))) {
            List<ListEntry> all = drain(listing);
            assertEquals(List.of(ListEntry.Kind.INVALID_NAME, ListEntry.Kind.INVALID_NAME, ListEntry.Kind.FILE),
                    all.stream().map(ListEntry::kind).toList());
            assertEquals("gs://models/run/a%00b.safetensors", all.get(0).location().text());
            assertTrue(!all.get(1).location().text().contains("%3F"), all.get(1).location().text());
        }
    }

    @Test
    void aWholeBucketNamingAnObjectDotDotIsAnInvalidNameEntry() throws Exception {
        stubPage(null, named(null, "..", "a.safetensors"));
        try (Listing listing = new GcsSourceProvider(storage).list(Location.parse("gs://models/"),
                ListOptions.DEFAULT.withRecursive(true))) {
            assertEquals(List.of(ListEntry.Kind.INVALID_NAME, ListEntry.Kind.FILE),
                    drain(listing).stream().map(ListEntry::kind).toList());
        }
    }

    @Test
    void aCycleOfSixtyFiveTokensEndsWhenItsFirstNameComesBack() throws Exception {
        int cycle = dev.safetensors.spi.PagedListing.REMEMBERED_TOKENS + 1;
        stubPage(null, named("t1", "run/k000.safetensors"));
        for (int i = 1; i < cycle; i++) {
            stubPage("t" + i, named("t" + ((i + 1) % cycle), String.format("run/k%03d.safetensors", i)));
        }
        stubPage("t0", named("t1", "run/k000.safetensors"));
        try (Listing listing = new GcsSourceProvider(storage).list(Location.parse("gs://models/run/"),
                ListOptions.DEFAULT.withRecursive(true))) {
            StorageException e = assertThrows(StorageException.class, () -> drain(listing));
            assertEquals(ErrorCode.INVALID_LISTING, e.code());
        }
        assertEquals(cycle + 1, server.urls().size(), "caught on the first name listed again");
    }

    @Test
    void freshTokensOverEmptyPagesEndAtTheEmptyPageBound() throws Exception {
        // every token leads to an empty page and a token not seen among the last 64: only the empty-page bound ends it
        for (int i = 0; i < 100; i++) {
            stubPage(i == 0 ? null : "e" + i, named("e" + (i + 1)));
        }
        try (Listing listing = new GcsSourceProvider(storage).list(Location.parse("gs://models/run/"),
                ListOptions.DEFAULT.withRecursive(true).withEndlessBounds(20, ListOptions.DEFAULT_MAX_TIME))) {
            StorageException e = assertThrows(StorageException.class, () -> drain(listing));
            assertEquals(ErrorCode.INVALID_LISTING, e.code());
        }
        assertEquals(20, server.urls().size());
    }
}
