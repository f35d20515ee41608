package dev.safetensors.http;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceStatistics;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.Random;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Locating the checkpoint of a Hub repository, against the fake Hub. */
class HubRepositoryTest {
    private static final FakeHub HUB = new FakeHub();
    private final HubRepository repositories = new HubRepository(HUB.settings().build());

    @BeforeEach
    void reset() {
        HUB.reset();
    }

    @AfterAll
    static void stop() {
        HUB.close();
    }

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        return b;
    }

    @Test
    void aSingleFileIsFoundWithOneOneByteRead() throws Exception {
        HUB.publish("acme/single", "model.safetensors", bytes(5000));
        HubCheckpoint c = repositories.locate(URI.create("hf://acme/single"));
        assertFalse(c.isSharded());
        assertTrue(c.index().isEmpty());
        assertEquals("acme/single", c.repository());
        assertEquals(FakeHub.COMMIT, c.commit());
        assertEquals(URI.create("hf://acme/single/model.safetensors@" + FakeHub.COMMIT), c.file());
        assertEquals(new SourceStatistics(1, 1, 2), c.cost(), "one read: the Hub's redirect, the CDN's 206");
        assertEquals("bytes=0-0", HUB.cdnRequests().get(0).getHeader("Range"));
    }

    @Test
    void aShardedCheckpointReturnsTheRawIndexAndPinnedShardUris() throws Exception {
        byte[] index = "{\"weight_map\":{\"w\":\"model-00001-of-00001.safetensors\"}}".getBytes(StandardCharsets.UTF_8);
        byte[] shard = bytes(300);
        HUB.publish("acme/sharded", "model.safetensors.index.json", index);
        HUB.publish("acme/sharded", "model-00001-of-00001.safetensors", shard);
        HubCheckpoint c = repositories.locate(URI.create("hf://acme/sharded@main"));
        assertTrue(c.isSharded());
        assertArrayEquals(index, c.index().orElseThrow());
        assertEquals(FakeHub.COMMIT, c.commit());
        assertEquals(new SourceStatistics(2, index.length, 1 + 2), c.cost(),
                "a 404 from the Hub, then one read of the whole index through a redirect");

        URI shardUri = c.resolve("model-00001-of-00001.safetensors");
        assertEquals(URI.create("hf://acme/sharded/model-00001-of-00001.safetensors@" + FakeHub.COMMIT), shardUri);
        try (RandomAccessSource s = new HttpSourceProvider(HUB.settings().build()).open(shardUri)) {
            ByteBuffer all = ByteBuffer.allocate(300);
            s.readFully(0, all);
            assertArrayEquals(shard, all.array());
        }
        List<LoggedRequest> hub = HUB.hubRequests();
        assertEquals("/acme/sharded/resolve/main/model.safetensors", hub.get(0).getUrl());
        assertEquals("/acme/sharded/resolve/main/model.safetensors.index.json", hub.get(1).getUrl());
        assertEquals("/acme/sharded/resolve/" + FakeHub.COMMIT + "/model-00001-of-00001.safetensors",
                hub.get(2).getUrl(), "shards are read at the index's commit");
    }

    @Test
    void anIndexLargerThanTheFirstReadTakesExactlyOneMoreRead() throws Exception {
        byte[] index = bytes(HubRepository.FIRST_READ + 1000);
        HUB.publish("acme/bigindex", "model.safetensors.index.json", index);
        HubCheckpoint c = repositories.locate(URI.create("hf://acme/bigindex"));
        assertArrayEquals(index, c.index().orElseThrow());
        assertEquals(new SourceStatistics(3, index.length, 1 + 2 + 2), c.cost());
        assertEquals("bytes=" + HubRepository.FIRST_READ + "-" + (index.length - 1),
                HUB.cdnRequests().get(HUB.cdnRequests().size() - 1).getHeader("Range"));
    }

    @Test
    void anOversizedIndexIsRefusedBeforeItIsRead() throws Exception {
        int total = HubRepository.MAX_INDEX_BYTES + 1;
        HUB.hub.stubFor(get(urlPathEqualTo("/acme/huge/resolve/main/model.safetensors.index.json"))
                .willReturn(aResponse().withStatus(206).withHeader("Content-Range",
                        "bytes 0-" + (HubRepository.FIRST_READ - 1) + "/" + total)
                        .withBody(new byte[HubRepository.FIRST_READ])));
        InvalidHeaderException e = assertThrows(InvalidHeaderException.class,
                () -> repositories.locate(URI.create("hf://acme/huge")));
        assertEquals(ErrorCode.INVALID_INDEX, e.code());
        assertTrue(e.getMessage().contains("more than the 16777216 allowed"), e.getMessage());
    }

    @Test
    void aRepositoryWithNeitherFileIsNoSuchFile() {
        NoSuchFileException e = assertThrows(NoSuchFileException.class,
                () -> repositories.locate(URI.create("hf://acme/empty@v1")));
        assertTrue(e.getMessage().contains("acme/empty at revision v1 holds neither model.safetensors nor "
                + "model.safetensors.index.json"), e.getMessage());
    }

    @Test
    void aShardPathCannotLeaveTheRepository() throws Exception {
        HUB.publish("acme/single", "model.safetensors", bytes(10));
        HubCheckpoint c = repositories.locate(URI.create("hf://acme/single"));
        for (String hostile : List.of("../other/model.safetensors", "/etc/passwd", "a//b", "a/./b", "", "a\\b")) {
            assertThrows(IOException.class, () -> c.resolve(hostile), hostile);
        }
    }

    @Test
    void aFileReferenceIsNotARepository() {
        assertThrows(IOException.class, () -> repositories.locate(URI.create("hf://acme/single/model.safetensors")));
    }
}
