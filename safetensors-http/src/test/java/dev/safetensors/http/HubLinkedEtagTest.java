package dev.safetensors.http;

import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceIdentity;
import dev.safetensors.fixtures.FakeHub;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Locale;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The digest a Hub file's identity reports is the {@code X-Linked-Etag} in canonical form, and only a SHA-256. */
class HubLinkedEtagTest {
    private static final FakeHub HUB = new FakeHub();
    private static final String SHA256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    private final HttpSourceProvider provider = new HttpSourceProvider(FakeHubSettings.of(HUB).build());

    @BeforeEach
    void reset() {
        HUB.reset();
    }

    @AfterAll
    static void stop() {
        HUB.close();
    }

    /** @return the identity of a four-byte Hub file whose answer carries {@code X-Linked-Etag: linked} */
    private SourceIdentity identityWith(String repo, String linked) throws IOException {
        HUB.hub().stubFor(get(urlPathEqualTo("/" + repo + "/resolve/main/model.safetensors")).willReturn(aResponse()
                .withStatus(206).withHeader("Content-Range", "bytes 0-3/4").withHeader("X-Linked-Etag", linked)
                .withHeader("X-Repo-Commit", FakeHub.COMMIT).withBody(new byte[4])));
        try (RandomAccessSource s = provider.open(Location.parse("hf://" + repo + "/model.safetensors"))) {
            assertEquals(4, s.read(0, ByteBuffer.allocate(4)));
            return s.identity();
        }
    }

    @Test
    void aQuotedUpperCaseLinkedEtagIsNormalised() throws IOException {
        SourceIdentity id = identityWith("acme/upper", "\"" + SHA256.toUpperCase(Locale.ROOT) + "\"");
        assertEquals(SHA256, id.linkedSha256());
        assertEquals("acme/upper", id.repository());
        assertEquals(FakeHub.COMMIT, id.revision());
    }

    @Test
    void aLinkedEtagThatIsNoSha256IsNotTakenForADigest() throws IOException {
        SourceIdentity id = identityWith("acme/sha1", "\"a94a8fe5ccb19ba61c4c0873d391e987982fbbd3\"");
        assertNull(id.linkedSha256());
        assertFalse(id.toAttributes().containsKey(SourceIdentity.LINKED_SHA256));
    }
}
