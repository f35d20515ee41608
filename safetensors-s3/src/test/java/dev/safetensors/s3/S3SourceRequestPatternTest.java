package dev.safetensors.s3;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.safetensors.SourceStatistics;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What each kind of read costs, counted on both sides: the requests WireMock received and the source's own count.
 *
 * <p>Alone ({@code @Isolated}): it counts the lines of {@link S3Source}'s logger, which every S3 read in the JVM
 * writes to.
 */
@Isolated
class S3SourceRequestPatternTest {
    private static final long ONE_GIB = 1L << 30;
    private static final String ETAG = "\"e1\"";

    private static WireMockS3 s3;

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

    @Test
    void headerThatFitsThePrefixIsOneGetAndNoHead() throws Exception {
        byte[] prefix = SampleCheckpoint.prefix(50_000, ONE_GIB - 50_008);
        s3.put("small-header", new StoredObject(prefix, ONE_GIB, ETAG));
        try (S3Source source = s3.open("small-header")) {
            byte[] header = HeaderPrefixRead.header(source);

            assertArrayEquals(Arrays.copyOfRange(prefix, 8, prefix.length), header);
            assertEquals(ONE_GIB, source.size(), "the size comes from the GET's Content-Range");
            assertEquals(List.of("GET bytes=0-131071"), describe(s3.requests()));
            assertEquals(new SourceStatistics(1, 131_072, 1), source.statistics());
        }
    }

    @Test
    void headerLargerThanThePrefixIsTwoGetsTheSecondForExactlyTheMissingBytes() throws Exception {
        int headerBytes = 2_000_000;
        byte[] prefix = SampleCheckpoint.prefix(headerBytes, ONE_GIB - 8 - headerBytes);
        s3.put("large-header", new StoredObject(prefix, ONE_GIB, ETAG));
        try (S3Source source = s3.open("large-header")) {
            byte[] header = HeaderPrefixRead.header(source);

            assertArrayEquals(Arrays.copyOfRange(prefix, 8, prefix.length), header);
            assertEquals(List.of("GET bytes=0-131071", "GET bytes=131072-2000007 If-Match " + ETAG),
                    describe(s3.requests()));
            assertEquals(new SourceStatistics(2, 2_000_008, 2), source.statistics());
        }
    }

    @Test
    void sizeBeforeAnyReadIsOneByteGetAndPinsTheEtag() throws Exception {
        s3.put("k", StoredObject.of(new byte[1000], ETAG));
        try (S3Source source = s3.open("k")) {
            assertEquals(1000, source.size());
            assertEquals(1000, source.size());
            source.readFully(10, ByteBuffer.allocate(10));

            assertEquals(List.of("GET bytes=0-0", "GET bytes=10-19 If-Match " + ETAG), describe(s3.requests()));
            assertEquals(Map.of("etag", ETAG), source.attributes());
        }
    }

    @Test
    void readAtOrPastAKnownEndMakesNoRequest() throws Exception {
        s3.put("k", StoredObject.of(new byte[100], ETAG));
        try (S3Source source = s3.open("k")) {
            assertEquals(100, source.read(0, ByteBuffer.allocate(200)));
            assertEquals(-1, source.read(100, ByteBuffer.allocate(8)));
            assertEquals(-1, source.read(5000, ByteBuffer.allocate(8)));
            assertEquals(1, s3.requests().size());
        }
    }

    @Test
    void readsAfterTheSizeIsKnownAskNoMoreThanTheObjectHolds() throws Exception {
        byte[] content = SampleCheckpoint.file(64, 228);
        s3.put("k", StoredObject.of(content, ETAG));
        try (S3Source source = s3.open("k")) {
            source.size();
            ByteBuffer dst = ByteBuffer.allocate(128);
            assertEquals(50, source.read(250, dst));
            assertEquals(List.of("GET bytes=0-0", "GET bytes=250-299 If-Match " + ETAG), describe(s3.requests()));
        }
    }

    @Test
    void openRangeIsOneStreamedGet() throws Exception {
        byte[] content = SampleCheckpoint.file(120, 1_000_000);
        s3.put("k", StoredObject.of(content, ETAG));
        try (S3Source source = s3.open("k");
             ReadableByteChannel tensor = source.openRange(128, 1_000_000)) {
            ByteBuffer dst = ByteBuffer.allocate(1_000_000);
            while (dst.hasRemaining() && tensor.read(dst) >= 0) {
                assertEquals(1, s3.requests().size());
            }
            assertEquals(-1, tensor.read(ByteBuffer.allocate(1)));
            assertArrayEquals(Arrays.copyOfRange(content, 128, content.length), dst.array());
            assertEquals(List.of("GET bytes=128-1000127"), describe(s3.requests()));
        }
    }

    @Test
    void aVersionedLocationAsksForThatVersionEveryTime() throws Exception {
        s3.put("k", StoredObject.of(new byte[100], ETAG));
        try (S3Source source = S3Source.open(s3.client, new S3Location(WireMockS3.BUCKET, "k", "v+1/2"))) {
            source.size();
            source.read(0, ByteBuffer.allocate(10));
            List<LoggedRequest> requests = s3.requests();
            assertEquals(2, requests.size());
            for (LoggedRequest r : requests) {
                assertEquals("v+1/2", r.queryParameter("versionId").firstValue());
            }
            assertEquals(Map.of("etag", ETAG, "version", "v+1/2"), source.attributes());
        }
    }

    @Test
    void eachRequestIsOneDebugLineWithMethodRangeStatusAndBytes() throws Exception {
        s3.put("k", StoredObject.of(new byte[1000], ETAG));
        Logger logger = Logger.getLogger(S3Source.class.getName());
        List<String> lines = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                lines.add(record.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Level before = logger.getLevel();
        logger.setLevel(Level.FINE);
        logger.addHandler(handler);
        try (S3Source source = s3.open("k")) {
            source.read(0, ByteBuffer.allocate(100));
        } finally {
            logger.removeHandler(handler);
            logger.setLevel(before);
        }
        assertEquals(1, lines.size(), lines.toString());
        String line = lines.get(0);
        assertTrue(line.contains("GET bytes=0-99") && line.contains("s3://models/k") && line.contains("206")
                && line.contains("100 bytes"), line);
    }

    @Test
    void noRequestIsMadeBeforeTheFirstRead() throws Exception {
        s3.put("k", StoredObject.of(new byte[10], ETAG));
        try (S3Source source = s3.open("k")) {
            assertEquals(SourceStatistics.NONE, source.statistics());
            assertTrue(s3.requests().isEmpty());
            assertNull(source.attributes().get("etag"));
        }
    }

    /** @return each request as {@code METHOD [Range] [If-Match value]}, oldest first */
    static List<String> describe(List<LoggedRequest> requests) {
        return requests.stream()
                .map(r -> r.getMethod().getName()
                        + (r.containsHeader("Range") ? " " + r.getHeader("Range") : "")
                        + (r.containsHeader("If-Match") ? " If-Match " + r.getHeader("If-Match") : ""))
                .toList();
    }
}
