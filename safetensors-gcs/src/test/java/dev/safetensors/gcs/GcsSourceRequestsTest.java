package dev.safetensors.gcs;

import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.Storage;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceStatistics;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ReadableByteChannel;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What goes over the wire: the exact requests, {@code Range} values and counts, for the header read patterns of
 * the header reader (one {@code read(0, 128 KiB)}, then one {@code readFully} for whatever a larger header lacks).
 */
class GcsSourceRequestsTest {
    private static final int PREFETCH = 128 * 1024;
    private static final long GENERATION = 1_712_345_678_901_234L;
    private static GcsTestServer server;
    private static Storage storage;

    @BeforeAll
    static void start() {
        server = new GcsTestServer();
        storage = server.storage(1);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void reset() {
        server.wireMock.resetAll();
        server.wireMock.stubFor(any(anyUrl()).willReturn(aResponse().withTransformers(FakeGcsObjects.NAME)));
    }

    /** A file whose first 8 bytes declare a header of {@code headerLength} bytes, followed by filler. */
    private static byte[] safetensorsLike(int size, int headerLength) {
        byte[] b = new byte[size];
        new Random(size).nextBytes(b);
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(0, headerLength);
        return b;
    }

    /** Reads the header as the header reader does; returns the 8 + n header bytes. */
    private static byte[] readHeaderLikeTheReader(RandomAccessSource s) throws Exception {
        ByteBuffer prefix = ByteBuffer.allocate(PREFETCH);
        int n = s.read(0, prefix);
        long headerLength = ByteBuffer.wrap(prefix.array()).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
        int needed = (int) (8 + headerLength);
        byte[] header = Arrays.copyOf(prefix.array(), needed);
        if (needed > n) {
            s.readFully(n, ByteBuffer.wrap(header, n, needed - n));
        }
        return header;
    }

    @Test
    void aHeaderThatFitsThePrefixCostsOneRequestAndNoMetadata() throws Exception {
        byte[] c = safetensorsLike(1_000_000, 1_000);
        FakeGcsObjects.put("b", "small.safetensors", c, GENERATION);
        try (GcsSource s = GcsSource.open(storage, BlobId.of("b", "small.safetensors"))) {
            byte[] header = readHeaderLikeTheReader(s);
            assertArrayEquals(Arrays.copyOf(c, 1_008), header);
            assertEquals(1_000_000, s.size());
            assertEquals(new SourceStatistics(1, PREFETCH, 1), s.statistics());
        }
        assertEquals(List.of("bytes=0-131071"), server.ranges());
        assertEquals(List.of("/download/storage/v1/b/b/o/small.safetensors?alt=media"), server.urls());
    }

    @Test
    void anObjectSmallerThanThePrefixCostsOneRequestForItsBytes() throws Exception {
        byte[] c = safetensorsLike(5_000, 100);
        FakeGcsObjects.put("b", "tiny.safetensors", c, GENERATION);
        try (GcsSource s = GcsSource.open(storage, BlobId.of("b", "tiny.safetensors"))) {
            ByteBuffer prefix = ByteBuffer.allocate(PREFETCH);
            assertEquals(5_000, s.read(0, prefix));
            assertEquals(-1, s.read(5_000, ByteBuffer.allocate(10)), "at the known size: no request");
            assertEquals(new SourceStatistics(1, 5_000, 1), s.statistics());
        }
        assertEquals(List.of("bytes=0-131071"), server.ranges());
    }

    @Test
    void aReadPastTheEndBeforeTheSizeIsKnownIsOneRequestAnswered416() throws Exception {
        FakeGcsObjects.put("b", "short.safetensors", safetensorsLike(64, 10), GENERATION);
        try (GcsSource s = GcsSource.open(storage, BlobId.of("b", "short.safetensors"))) {
            assertEquals(-1, s.read(1_000, ByteBuffer.allocate(8)));
            assertEquals(new SourceStatistics(1, 0, 1), s.statistics());
        }
        assertEquals(List.of("bytes=1000-1007"), server.ranges());
    }

    @Test
    void aLargerHeaderCostsExactlyTwoRequestsForExactlyItsBytes() throws Exception {
        int headerLength = 200_000;
        byte[] c = safetensorsLike(400_000, headerLength);
        FakeGcsObjects.put("b", "large.safetensors", c, GENERATION);
        try (GcsSource s = GcsSource.open(storage, BlobId.of("b", "large.safetensors"))) {
            byte[] header = readHeaderLikeTheReader(s);
            assertArrayEquals(Arrays.copyOf(c, 8 + headerLength), header);
            assertEquals(new SourceStatistics(2, 8 + headerLength, 2), s.statistics());
        }
        assertEquals(List.of("bytes=0-131071", "bytes=131072-200007"), server.ranges());
        assertEquals("/download/storage/v1/b/b/o/large.safetensors?alt=media&generation=" + GENERATION
                + "&ifGenerationMatch=" + GENERATION, server.urls().get(1), "the second read pins the generation");
    }

    @Test
    void openRangeIsOneRequestForExactlyTheRange() throws Exception {
        byte[] c = safetensorsLike(300_000, 10);
        FakeGcsObjects.put("b", "range.safetensors", c, GENERATION);
        try (GcsSource s = GcsSource.open(storage, BlobId.of("b", "range.safetensors"));
             ReadableByteChannel ch = s.openRange(1_000, 250_000)) {
            ByteBuffer all = ByteBuffer.allocate(250_001);
            while (ch.read(all) >= 0) {
                // drained to the end, which also checks that no extra byte follows
            }
            assertEquals(250_000, all.position());
            assertArrayEquals(Arrays.copyOfRange(c, 1_000, 251_000), Arrays.copyOf(all.array(), 250_000));
            assertEquals(new SourceStatistics(1, 250_000, 1), s.statistics());
        }
        assertEquals(List.of("bytes=1000-250999"), server.ranges());
    }

    @Test
    void objectNamesAreSentAsOnePercentEncodedSegment() throws Exception {
        String object = "models/v1/a b+é.safetensors";
        FakeGcsObjects.put("my-bucket", object, safetensorsLike(100, 10), GENERATION);
        try (RandomAccessSource s = new GcsSourceProvider(storage)
                .open(Location.parse("gs://my-bucket/models/v1/a%20b+%C3%A9.safetensors"))) {
            assertEquals(100, s.read(0, ByteBuffer.allocate(100)));
            assertEquals("gs://my-bucket/" + object, s.name());
        }
        assertEquals(List.of("/download/storage/v1/b/my-bucket/o/models%2Fv1%2Fa%20b%2B%C3%A9.safetensors?alt=media"),
                server.urls());
    }

    @Test
    void aGenerationInTheUriIsSentFromTheFirstRequest() throws Exception {
        FakeGcsObjects.put("b", "pinned.safetensors", safetensorsLike(100, 10), GENERATION);
        try (RandomAccessSource s = new GcsSourceProvider(storage)
                .open(Location.parse("gs://b/pinned.safetensors#" + GENERATION))) {
            assertEquals(Map.of("version", Long.toString(GENERATION)), s.attributes());
            assertEquals(10, s.read(0, ByteBuffer.allocate(10)));
            assertEquals(Map.of("version", Long.toString(GENERATION), "etag", "\"etag-" + GENERATION + "\""),
                    s.attributes());
        }
        assertEquals(List.of("/download/storage/v1/b/b/o/pinned.safetensors?alt=media&generation=" + GENERATION
                + "&ifGenerationMatch=" + GENERATION), server.urls());
    }

    @Test
    void sizeBeforeAnyReadIsOneByteMediaRequestThatPinsTheGeneration() throws Exception {
        FakeGcsObjects.put("b", "dir/meta.safetensors", safetensorsLike(777, 10), GENERATION);
        try (GcsSource s = GcsSource.open(storage, BlobId.of("b", "dir/meta.safetensors"))) {
            assertEquals(777, s.size());
            assertEquals(1, s.statistics().requests());
            assertEquals(-1, s.read(777, ByteBuffer.allocate(1)));
            assertEquals(7, s.read(770, ByteBuffer.allocate(100)));
            assertEquals(new SourceStatistics(2, 8, 2), s.statistics());
        }
        List<String> urls = server.urls();
        assertEquals(2, urls.size(), urls.toString());
        assertEquals("/download/storage/v1/b/b/o/dir%2Fmeta.safetensors?alt=media", urls.get(0));
        assertEquals("/download/storage/v1/b/b/o/dir%2Fmeta.safetensors?alt=media&generation=" + GENERATION
                + "&ifGenerationMatch=" + GENERATION, urls.get(1));
        assertEquals(List.of("bytes=0-0", "bytes=770-776"), server.ranges());
    }
}
