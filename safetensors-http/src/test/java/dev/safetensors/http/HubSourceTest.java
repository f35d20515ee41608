package dev.safetensors.http;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceChangedException;
import dev.safetensors.SourceStatistics;
import dev.safetensors.StorageException;
import dev.safetensors.fixtures.FakeHub;
import dev.safetensors.fixtures.RecordedRequest;
import dev.safetensors.fixtures.ScriptedAnswer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An {@code hf://} source against a fake Hub that redirects to a fake CDN: requests, ranges, tokens, pinning. */
class HubSourceTest {
    private static final FakeHub HUB = new FakeHub();
    private static final int PREFETCH = 128 * 1024;

    private final HttpSourceProvider provider = new HttpSourceProvider(FakeHubSettings.of(HUB).build());

    @BeforeEach
    void reset() {
        HUB.reset();
    }

    @AfterAll
    static void stop() {
        HUB.close();
    }

    /** A file whose first 8 bytes declare a header of {@code headerLength} bytes, as a safetensors file does. */
    private static byte[] file(int headerLength, int size) {
        byte[] b = new byte[size];
        new Random(size).nextBytes(b);
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(0, headerLength);
        return b;
    }

    /** The request pattern of a header check: one prefix read, then exactly the missing header bytes. */
    private static byte[] readHeader(RandomAccessSource source) throws IOException {
        ByteBuffer prefix = ByteBuffer.allocate(PREFETCH);
        int n = source.read(0, prefix);
        long headerLength = prefix.order(ByteOrder.LITTLE_ENDIAN).getLong(0);
        byte[] header = Arrays.copyOf(prefix.array(), (int) (8 + headerLength));
        if (8 + headerLength > n) {
            source.readFully(n, ByteBuffer.wrap(header, n, header.length - n));
        }
        return header;
    }

    @Test
    void aSmallHeaderCostsOneReadAndTheTokenReachesTheHubOnly() throws Exception {
        byte[] content = file(1000, 5000);
        HUB.publish("acme/small", "model.safetensors", content);
        try (RandomAccessSource s = provider.open(Location.parse("hf://acme/small/model.safetensors"))) {
            assertArrayEquals(Arrays.copyOf(content, 1008), readHeader(s));
            assertEquals(new SourceStatistics(1, 5000, 2), s.statistics(), "one read, two exchanges: 302, then 206");
            assertEquals(5000, s.size());
            assertEquals(1, s.statistics().requests(), "the size came with the first answer");
        }
        List<LoggedRequest> hub = HUB.hubRequests();
        List<RecordedRequest> cdn = HUB.cdnRequests();
        assertEquals(1, hub.size());
        assertEquals(1, cdn.size());
        assertEquals("/acme/small/resolve/main/model.safetensors", hub.get(0).getUrl());
        assertEquals("bytes=0-131071", hub.get(0).getHeader("Range"));
        assertEquals("Bearer " + FakeHub.TOKEN, hub.get(0).getHeader("Authorization"));
        assertEquals("bytes=0-131071", cdn.get(0).header("Range"));
        assertFalse(cdn.get(0).hasHeader("Authorization"), "the token must not follow the redirect to the CDN");
        assertFalse(cdn.get(0).hasHeader("If-Match"), "nothing is pinned before the first answer");
    }

    @Test
    void aLargeHeaderCostsExactlyOneMoreReadOfTheMissingBytesAtThePinnedCommit() throws Exception {
        byte[] content = file(200_000, 300_000);
        HUB.publish("acme/large", "model.safetensors", content);
        try (RandomAccessSource s = provider.open(Location.parse("hf://acme/large/model.safetensors"))) {
            assertArrayEquals(Arrays.copyOf(content, 200_008), readHeader(s));
            assertEquals(new SourceStatistics(2, 200_008, 4), s.statistics());
        }
        List<LoggedRequest> hub = HUB.hubRequests();
        List<RecordedRequest> cdn = HUB.cdnRequests();
        assertEquals(2, hub.size());
        assertEquals(2, cdn.size());
        assertEquals("/acme/large/resolve/main/model.safetensors", hub.get(0).getUrl());
        assertEquals("/acme/large/resolve/" + FakeHub.COMMIT + "/model.safetensors", hub.get(1).getUrl(),
                "later reads resolve against the commit, not the moving branch");
        assertEquals("bytes=131072-200007", hub.get(1).getHeader("Range"));
        assertEquals("bytes=131072-200007", cdn.get(1).header("Range"));
        assertEquals(FakeHub.CDN_ETAG, cdn.get(1).header("If-Match"));
        assertFalse(hub.get(1).containsHeader("If-Match"), "the CDN's ETag is not sent to the Hub");
        assertTrue(hub.stream().allMatch(r -> r.containsHeader("Authorization")));
        assertTrue(cdn.stream().noneMatch(r -> r.hasHeader("Authorization")));
    }

    @Test
    void attributesNameTheRepositoryCommitEtagAndReportedDigest() throws Exception {
        byte[] content = file(10, 100);
        HUB.publish("acme/attrs", "sub/model.safetensors", content);
        try (RandomAccessSource s = provider.open(Location.parse("hf://acme/attrs@main/sub/model.safetensors"))) {
            assertEquals(Map.of("repository", "acme/attrs"), s.attributes());
            s.read(0, ByteBuffer.allocate(10));
            assertEquals(Map.of("repository", "acme/attrs", "revision", FakeHub.COMMIT, "etag", FakeHub.CDN_ETAG,
                    "linked_etag", FakeHub.linkedEtag(content).replace("\"", "")), s.attributes(),
                    "the reported digest in lower-case hex, without the quotes the Hub sends it in");
            assertEquals("hf://acme/attrs@main/sub/model.safetensors", s.name());
        }
    }

    @Test
    void anEtagChangeIsDetectedWhenTheServerIgnoresIfMatch() throws Exception {
        HUB.publish("acme/etag", "model.safetensors", file(10, 1000));
        try (RandomAccessSource s = provider.open(Location.parse("hf://acme/etag/model.safetensors"))) {
            s.read(0, ByteBuffer.allocate(10));
            // the CDN now serves another object and ignores If-Match
            HUB.cdn().script(ScriptedAnswer.serve().withEtag("\"cdn-etag-2\""));
            SourceChangedException e = assertThrows(SourceChangedException.class,
                    () -> s.read(10, ByteBuffer.allocate(10)));
            assertTrue(e.getMessage().contains("cdn-etag-2"), e.getMessage());
        }
    }

    @Test
    void preconditionFailedIsASourceChange() throws Exception {
        HUB.publish("acme/412", "model.safetensors", file(10, 1000));
        try (RandomAccessSource s = provider.open(Location.parse("hf://acme/412/model.safetensors"))) {
            s.read(0, ByteBuffer.allocate(10));
            // the object changed: the CDN's If-Match check refuses the pinned ETag
            HUB.cdn().publish(HUB.cdnRequests().get(0).path(), file(10, 1000), "\"cdn-etag-2\"");
            assertThrows(SourceChangedException.class, () -> s.read(10, ByteBuffer.allocate(10)));
        }
    }

    @Test
    void aCommitChangeIsASourceChange() throws Exception {
        HUB.publish("acme/moved", "model.safetensors", file(10, 1000));
        try (RandomAccessSource s = provider.open(Location.parse("hf://acme/moved/model.safetensors"))) {
            s.read(0, ByteBuffer.allocate(10));
            String cdnUrl = HUB.cdn().url(HUB.cdnRequests().get(0).target()).toString();
            HUB.hub().stubFor(get(urlPathEqualTo("/acme/moved/resolve/" + FakeHub.COMMIT + "/model.safetensors"))
                    .willReturn(aResponse().withStatus(302).withHeader("Location", cdnUrl)
                            .withHeader("X-Repo-Commit", "fedcba9876543210fedcba9876543210fedcba98")));
            assertThrows(SourceChangedException.class, () -> s.read(10, ByteBuffer.allocate(10)));
        }
    }

    @Test
    void aMissingFileNamesRepositoryRevisionAndPath() throws Exception {
        HUB.hub().stubFor(get(urlPathEqualTo("/acme/none/resolve/v2/dir/x.safetensors"))
                .willReturn(aResponse().withStatus(404).withHeader("X-Error-Message", "Entry not found")));
        try (RandomAccessSource s = provider.open(Location.parse("hf://acme/none@v2/dir/x.safetensors"))) {
            NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> s.read(0, ByteBuffer.allocate(8)));
            assertTrue(e.getMessage().contains("repository acme/none, revision v2, path dir/x.safetensors"),
                    e.getMessage());
            assertTrue(e.getMessage().contains("Entry not found"), e.getMessage());
        }
        assertEquals(1, HUB.hubRequests().size(), "a 404 is not retried");
    }

    @Test
    void unauthorizedSaysATokenMayBeNeeded() throws Exception {
        HUB.hub().stubFor(get(urlPathEqualTo("/acme/gated/resolve/main/model.safetensors"))
                .willReturn(aResponse().withStatus(401)));
        HttpSourceProvider anonymous = new HttpSourceProvider(FakeHubSettings.of(HUB).token(null).build());
        try (RandomAccessSource s = anonymous.open(Location.parse("hf://acme/gated/model.safetensors"))) {
            AccessDeniedException e = assertThrows(AccessDeniedException.class,
                    () -> s.read(0, ByteBuffer.allocate(8)));
            assertTrue(e.getMessage().contains("a token may be needed"), e.getMessage());
        }
        assertFalse(HUB.hubRequests().get(0).containsHeader("Authorization"));
        assertEquals(1, HUB.hubRequests().size(), "a 401 is not retried");
    }

    @Test
    void forbiddenWithATokenSaysTheTokenWasRefused() throws Exception {
        HUB.hub().stubFor(get(urlPathEqualTo("/acme/private/resolve/main/model.safetensors"))
                .willReturn(aResponse().withStatus(403)));
        try (RandomAccessSource s = provider.open(Location.parse("hf://acme/private/model.safetensors"))) {
            AccessDeniedException e = assertThrows(AccessDeniedException.class,
                    () -> s.read(0, ByteBuffer.allocate(8)));
            assertTrue(e.getMessage().contains("token was refused"), e.getMessage());
            assertFalse(e.getMessage().contains(FakeHub.TOKEN));
        }
    }

    @Test
    void theTokenIsNotSentAgainAfterTheChainLeftTheHub() throws Exception {
        HUB.hub().stubFor(get(urlPathEqualTo("/acme/bounce/resolve/main/model.safetensors")).willReturn(aResponse()
                .withStatus(302).withHeader("Location", HUB.cdnBase() + "away")));
        HUB.cdn().script(ScriptedAnswer.status(307, "Location: " + HUB.endpoint() + "/back"));
        HUB.hub().stubFor(get(urlPathEqualTo("/back")).willReturn(aResponse().withStatus(206)
                .withHeader("Content-Range", "bytes 0-3/4").withBody(new byte[4])));
        try (RandomAccessSource s = provider.open(Location.parse("hf://acme/bounce/model.safetensors"))) {
            assertEquals(4, s.read(0, ByteBuffer.allocate(4)));
        }
        List<LoggedRequest> hub = HUB.hubRequests();
        assertEquals(2, hub.size());
        assertTrue(hub.get(0).containsHeader("Authorization"));
        assertFalse(hub.get(1).containsHeader("Authorization"), "back on the Hub after the CDN: no token");
    }

    @Test
    void namesAndMessagesCarryNoSignatureNorToken() throws Exception {
        HUB.publish("acme/signed", "model.safetensors", file(10, 1000));
        try (RandomAccessSource s = provider.open(Location.parse("hf://acme/signed/model.safetensors"))) {
            s.read(0, ByteBuffer.allocate(10));
            HUB.cdn().script(ScriptedAnswer.status(400));
            StorageException e = assertThrows(StorageException.class, () -> s.read(10, ByteBuffer.allocate(10)));
            assertEquals(ErrorCode.IO_ERROR, e.code());
            assertTrue(e.getMessage().contains("answered 400"), e.getMessage());
            assertFalse(e.getMessage().contains(FakeHub.SIGNATURE), e.getMessage());
            assertFalse(e.getMessage().contains(FakeHub.TOKEN), e.getMessage());
            assertFalse(s.name().contains("?"));
        }
    }

    @Test
    void aRepositoryReferenceIsNotAFile() {
        InvalidLocationException e = assertThrows(InvalidLocationException.class,
                () -> provider.open(Location.parse("hf://acme/repo@main")));
        assertEquals(ErrorCode.INVALID_SOURCE, e.code());
        assertTrue(e.getMessage().contains("HubRepository"), e.getMessage());
        assertTrue(HUB.hubRequests().isEmpty(), "opening makes no request");
    }
}
