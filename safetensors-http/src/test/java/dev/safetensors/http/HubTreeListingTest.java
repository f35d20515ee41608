package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.StorageException;
import dev.safetensors.fixtures.FakeHub;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.testing.ManualTime;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static com.github.tomakehurst.wiremock.client.WireMock.absent;
import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Hub folders listed with the tree API against the fake Hub: one request per page, files pinned to the commit. */
class HubTreeListingTest {
    private static final FakeHub HUB = new FakeHub();
    private static final String C = FakeHub.COMMIT;
    private final HttpSourceProvider provider = new HttpSourceProvider(FakeHubSettings.of(HUB).build());

    @BeforeEach
    void reset() {
        HUB.reset();
    }

    @AfterAll
    static void stop() {
        HUB.close();
    }

    private void page(String api, String cursor, String body, String next) {
        var response = aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                .withHeader("X-Repo-Commit", C).withBody(body);
        if (next != null) {
            response = response.withHeader("Link", "<" + next + ">; rel=\"next\"");
        }
        HUB.hub().stubFor(get(urlPathEqualTo(api)).withQueryParam("cursor", cursor == null ? absent() : equalTo(cursor))
                .willReturn(response));
    }

    private static List<ListEntry> drain(Listing listing) throws Exception {
        List<ListEntry> all = new ArrayList<>();
        while (listing.hasNext()) {
            all.add(listing.next());
        }
        return all;
    }

    @Test
    void aTreePageAnswered503IsAskedAgainWithTheSameCursor() throws Exception {
        String api = "/api/models/acme/tiny/tree/main/shards";
        page(api, null, "[{\"type\":\"file\",\"path\":\"shards/a.safetensors\",\"size\":10,\"oid\":\"g1\"}]",
                HUB.endpoint() + api + "?cursor=abc");
        HUB.hub().stubFor(get(urlPathEqualTo(api)).withQueryParam("cursor", equalTo("abc"))
                .inScenario("second page").whenScenarioStateIs(Scenario.STARTED).willSetStateTo("answered")
                .willReturn(aResponse().withStatus(503).withHeader("Retry-After", "1")));
        HUB.hub().stubFor(get(urlPathEqualTo(api)).withQueryParam("cursor", equalTo("abc"))
                .inScenario("second page").whenScenarioStateIs("answered")
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withHeader("X-Repo-Commit", C)
                        .withBody("[{\"type\":\"file\",\"path\":\"shards/b.safetensors\",\"size\":20,"
                                + "\"oid\":\"g2\"}]")));
        ManualTime time = new ManualTime();
        HttpSourceProvider retrying = new HttpSourceProvider(FakeHubSettings.of(HUB)
                .remotePolicy(RemotePolicy.builder().maxAttempts(3).time(time).build()).build());
        try (Listing listing = retrying.list(Location.parse("hf://acme/tiny/shards/"), ListOptions.DEFAULT)) {
            List<ListEntry> all = drain(listing);
            assertEquals(List.of("hf://acme/tiny@" + C + "/shards/a.safetensors",
                    "hf://acme/tiny@" + C + "/shards/b.safetensors"), all.stream().map(e -> e.location().text())
                    .toList());
            assertEquals(2, listing.cost().requests());
            assertEquals(3, listing.cost().exchanges());
        }
        assertEquals(3, HUB.hubRequests().size());
        assertEquals(List.of(Duration.ofSeconds(1)), time.sleeps(), "the Hub's Retry-After, on the policy's clock");
    }

    @Test
    void aTreePageAnswered501EndsTheListingAtOnce() throws Exception {
        String api = "/api/models/acme/tiny/tree/main/shards";
        HUB.hub().stubFor(get(urlPathEqualTo(api)).willReturn(aResponse().withStatus(501)));
        ManualTime time = new ManualTime();
        HttpSourceProvider retrying = new HttpSourceProvider(FakeHubSettings.of(HUB)
                .remotePolicy(RemotePolicy.builder().maxAttempts(3).time(time).build()).build());
        try (Listing listing = retrying.list(Location.parse("hf://acme/tiny/shards/"), ListOptions.DEFAULT)) {
            StorageException e = assertThrows(StorageException.class, listing::hasNext);
            assertEquals(ErrorCode.SERVER_ERROR, e.code());
        }
        assertEquals(1, HUB.hubRequests().size());
        assertEquals(List.of(), time.sleeps());
    }

    @Test
    void aDatasetFolderIsListedPageByPageAndPinnedToTheCommit() throws Exception {
        String api = "/api/datasets/acme/data/tree/main/shards";
        page(api, null, "[{\"type\":\"file\",\"path\":\"shards/a.safetensors\",\"size\":10,\"oid\":\"g1\","
                + "\"lfs\":{\"oid\":\"sha-a\",\"size\":10}},{\"type\":\"directory\",\"path\":\"shards/sub\","
                + "\"oid\":\"t1\",\"size\":0}]", HUB.endpoint() + api + "?recursive=true&cursor=abc");
        page(api, "abc", "[{\"type\":\"file\",\"path\":\"shards/sub/b.safetensors\",\"size\":20,\"oid\":\"g2\"}]",
                null);
        try (Listing listing = provider.list(Location.parse("hf://datasets/acme/data/shards/"),
                ListOptions.DEFAULT.withRecursive(true))) {
            List<ListEntry> all = drain(listing);
            assertEquals(3, all.size());
            assertEquals("hf://datasets/acme/data@" + C + "/shards/a.safetensors", all.get(0).location().text());
            assertEquals("sha-a", all.get(0).version().orElseThrow(), "the LFS digest");
            assertEquals(ListEntry.Kind.FOLDER, all.get(1).kind());
            assertEquals("g2", all.get(2).version().orElseThrow(), "the git blob id without LFS");
            assertEquals(20, all.get(2).size());
            assertEquals(2, listing.cost().requests());
        }
        assertEquals(2, HUB.hubRequests().size());
    }

    @Test
    void aNextLinkToAnotherOriginIsNotFollowed() throws Exception {
        String api = "/api/models/acme/model/tree/main";
        page(api, null, "[{\"type\":\"file\",\"path\":\"a.safetensors\",\"size\":1,\"oid\":\"g\"}]",
                "http://127.0.0.1:1/steal?cursor=x");
        try (Listing listing = provider.list(Location.parse("hf://acme/model/"), ListOptions.DEFAULT)) {
            StorageException e = assertThrows(StorageException.class, () -> drain(listing));
            assertEquals(ErrorCode.INVALID_LISTING, e.code());
        }
        assertEquals(1, HUB.hubRequests().size());
    }

    @Test
    void anEntryOutsideTheFolderIsAnInvalidListing() throws Exception {
        String api = "/api/models/acme/model/tree/main/unet";
        page(api, null, "[{\"type\":\"file\",\"path\":\"vae/x.safetensors\",\"size\":1,\"oid\":\"g\"}]", null);
        try (Listing listing = provider.list(Location.parse("hf://acme/model/unet/"), ListOptions.DEFAULT)) {
            StorageException e = assertThrows(StorageException.class, () -> drain(listing));
            assertEquals(ErrorCode.INVALID_LISTING, e.code());
        }
    }

    @Test
    void anHttpsUrlIsNotListable() {
        InvalidLocationException e = assertThrows(InvalidLocationException.class,
                () -> provider.list(Location.parse("https://example.com/models/"), ListOptions.DEFAULT));
        assertEquals(ErrorCode.NOT_LISTABLE, e.code());
    }
}
