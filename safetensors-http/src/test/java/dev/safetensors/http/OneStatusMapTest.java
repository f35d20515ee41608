package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.fixtures.FakeHub;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.spi.StatusMapping;
import dev.safetensors.testing.ManualTime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The three kinds of request the Hub is asked (a ranged read, a page of the tree listing, the revision listing) map
 * one status to one code: the code {@link StatusMapping} gives it.
 */
class OneStatusMapTest {
    private static final FakeHub HUB = new FakeHub();
    private static final int[] STATUSES = {400, 401, 403, 404, 405, 410, 412, 418, 429, 500, 501, 502, 503, 504};

    /** One attempt per request, so each status is the final answer. */
    private final HttpSettings once = FakeHubSettings.of(HUB)
            .remotePolicy(RemotePolicy.builder().maxAttempts(1).time(new ManualTime()).build()).build();

    @BeforeEach
    void reset() {
        HUB.reset();
    }

    @AfterAll
    static void stop() {
        HUB.close();
    }

    private static void answer(String path, int status) {
        HUB.hub().stubFor(get(urlPathEqualTo(path)).willReturn(aResponse().withStatus(status)));
    }

    @Test
    void aReadAListingPageAndTheRevisionListingMapEachStatusAlike() throws IOException {
        HttpSourceProvider provider = new HttpSourceProvider(once);
        HubRepository repositories = new HubRepository(once);
        for (int status : STATUSES) {
            String repo = "acme/s" + status;
            answer("/" + repo + "/resolve/main/model.safetensors", status);
            answer("/api/models/" + repo + "/tree/main/shards", status);
            answer("/api/models/" + repo + "/revision/main", status);
            // the exact type the one map gives, not any IOException
            Class<? extends IOException> type = StatusMapping.failure(status, "n", "m", null).getClass();

            IOException read;
            try (RandomAccessSource s = provider.open(Location.parse("hf://" + repo + "/model.safetensors"))) {
                read = assertThrows(type, () -> s.read(0, ByteBuffer.allocate(8)));
            }
            IOException page;
            try (Listing l = provider.list(Location.parse("hf://" + repo + "/shards/"), ListOptions.DEFAULT)) {
                page = assertThrows(type, l::hasNext);
            }
            IOException revision = assertThrows(type,
                    () -> repositories.list(Location.parse("hf://" + repo)));

            ErrorCode expected = StatusMapping.code(status);
            assertEquals(expected, ErrorCode.of(read), "a read answered " + status + ": " + read);
            assertEquals(expected, ErrorCode.of(page), "a listing page answered " + status + ": " + page);
            assertEquals(expected, ErrorCode.of(revision), "the revision listing answered " + status + ": " + revision);
            assertEquals(type, read.getClass(), "status " + status);
            assertEquals(read.getClass(), page.getClass(), "status " + status);
            assertEquals(read.getClass(), revision.getClass(), "status " + status);
        }
    }
}
