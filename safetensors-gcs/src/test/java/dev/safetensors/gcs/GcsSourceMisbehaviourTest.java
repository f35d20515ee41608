package dev.safetensors.gcs;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.Storage;
import dev.safetensors.ErrorCode;
import dev.safetensors.RangeNotHonouredException;
import dev.safetensors.StorageException;
import dev.safetensors.SafetensorsException;
import dev.safetensors.SourceChangedException;
import dev.safetensors.fixtures.ScriptedRangeServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.time.Duration;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Servers that do not answer with exactly the bytes asked for, and objects that change or are transcoded. */
class GcsSourceMisbehaviourTest {
    private static final String PATH = "/download/storage/v1/b/b/o/m.safetensors";
    private static final long HANG_GUARD_SECONDS = 60;
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
    }

    private static GcsSource source() {
        return GcsSource.open(storage, BlobId.of("b", "m.safetensors"));
    }

    private static ResponseDefinitionBuilder partial(String contentRange, byte[] body, long generation) {
        return aResponse().withStatus(206).withHeader("Content-Range", contentRange)
                .withHeader("x-goog-generation", Long.toString(generation)).withBody(body);
    }

    private static void answer(ResponseDefinitionBuilder response) {
        server.wireMock.stubFor(get(urlPathEqualTo(PATH)).willReturn(response));
    }

    private static void assertCode(ErrorCode code, IOException e) {
        assertTrue(e instanceof SafetensorsException, e.toString());
        assertEquals(code, ((SafetensorsException) e).code(), e.getMessage());
    }

    /**
     * Reads {@code length} bytes at 0 from a server that answers with an endless body, and returns what the read
     * threw, after checking that the client hung up having let the server send no more than socket buffers hold:
     * the body was abandoned, not drained (a client that drained would never hang up; the wait for the hang-up is
     * only a guard against that).
     */
    private static <T extends IOException> T abandoned(ScriptedRangeServer endless, int length, Class<T> type)
            throws Exception {
        try (endless; GcsSource s = GcsSource.open(GcsTestServer.storage(endless.endpoint().toString(), 1),
                BlobId.of("b", "m.safetensors"))) {
            T e = assertThrows(type, () -> s.read(0, ByteBuffer.allocate(length)));
            long written = endless.awaitQuiet(Duration.ofSeconds(HANG_GUARD_SECONDS));
            assertTrue(written < ScriptedRangeServer.ABANDONED_AT_MOST, "the server sent " + written + " body bytes");
            return e;
        }
    }

    @Test
    void aServerThatIgnoresRangeWithAnEndlessBodyFailsWithoutDrainingIt() throws Exception {
        RangeNotHonouredException e = abandoned(ScriptedRangeServer.endless(200, "x-goog-generation: 1",
                "Transfer-Encoding: chunked"), 128 * 1024, RangeNotHonouredException.class);
        assertCode(ErrorCode.RANGE_NOT_HONOURED, e);
        assertTrue(e instanceof RangeNotHonouredException, e.toString());
        assertTrue(e.getMessage().contains("status 200"), e.getMessage());
    }

    @Test
    void closingARangeEarlyAbandonsTheRestOfTheBody() throws Exception {
        long size = ScriptedRangeServer.TERABYTE;
        try (ScriptedRangeServer endless = ScriptedRangeServer.endless(206, "x-goog-generation: 1",
                "Content-Range: bytes 0-" + (size - 1) + "/" + size, "Transfer-Encoding: chunked");
             GcsSource s = GcsSource.open(GcsTestServer.storage(endless.endpoint().toString(), 1),
                     BlobId.of("b", "m.safetensors"))) {
            try (ReadableByteChannel ch = s.openRange(0, size)) {
                assertTrue(ch.read(ByteBuffer.allocate(16)) > 0);
            }
            long written = endless.awaitQuiet(Duration.ofSeconds(HANG_GUARD_SECONDS));
            assertTrue(written < ScriptedRangeServer.ABANDONED_AT_MOST, "the server sent " + written + " body bytes");
        }
    }

    @Test
    void aShiftedRangeIsRefused() {
        answer(partial("bytes 10-109/1000", new byte[100], 1));
        IOException e = assertThrows(IOException.class, () -> source().read(0, ByteBuffer.allocate(100)));
        assertCode(ErrorCode.RANGE_NOT_HONOURED, e);
        assertTrue(e.getMessage().contains("bytes 10-109/1000"), e.getMessage());
    }

    @Test
    void aShortRangeBeforeTheEndIsRefused() {
        answer(partial("bytes 0-49/1000", new byte[50], 1));
        IOException e = assertThrows(IOException.class, () -> source().read(0, ByteBuffer.allocate(100)));
        assertCode(ErrorCode.RANGE_NOT_HONOURED, e);
    }

    @Test
    void aBodyShorterThanItsContentRangeIsResumedFromItsFirstMissingByte() throws IOException {
        answer(partial("bytes 0-99/1000", new byte[60], 1));
        server.wireMock.stubFor(get(urlPathEqualTo(PATH)).atPriority(0).withHeader("Range", equalTo("bytes=60-99"))
                .willReturn(partial("bytes 60-99/1000", new byte[40], 1)));
        assertEquals(100, source().read(0, ByteBuffer.allocate(100)));
    }

    @Test
    void aBodyLongerThanItsContentRangeIsRefused() {
        // Chunked, so no Content-Length gives it away: the one extra byte read after the range does.
        answer(partial("bytes 0-99/1000", new byte[150], 1).withChunkedDribbleDelay(2, 10));
        IOException e = assertThrows(IOException.class, () -> source().read(0, ByteBuffer.allocate(100)));
        assertCode(ErrorCode.RANGE_NOT_HONOURED, e);
        assertTrue(e.getMessage().contains("more than"), e.getMessage());
    }

    @Test
    void aDifferentGenerationOnALaterReadIsASourceChange() throws Exception {
        answer(partial("bytes 0-9/1000", new byte[10], 1));
        try (GcsSource s = source()) {
            assertEquals(10, s.read(0, ByteBuffer.allocate(10)));
            answer(partial("bytes 10-19/1000", new byte[10], 2));
            SourceChangedException e = assertThrows(SourceChangedException.class,
                    () -> s.read(10, ByteBuffer.allocate(10)));
            assertTrue(e.getMessage().contains("generation 1 was pinned"), e.getMessage());
        }
    }

    @Test
    void aFailedGenerationPreconditionIsASourceChange() throws Exception {
        answer(partial("bytes 0-9/1000", new byte[10], 1));
        try (GcsSource s = source()) {
            assertEquals(10, s.read(0, ByteBuffer.allocate(10)));
            answer(aResponse().withStatus(412).withBody("{\"error\":{\"code\":412,\"message\":\"conditionNotMet\"}}"));
            assertThrows(SourceChangedException.class, () -> s.read(10, ByteBuffer.allocate(10)));
        }
    }

    @Test
    void anObjectDeletedAfterTheFirstReadIsASourceChange() throws Exception {
        answer(partial("bytes 0-9/1000", new byte[10], 1));
        try (GcsSource s = source()) {
            assertEquals(10, s.read(0, ByteBuffer.allocate(10)));
            answer(aResponse().withStatus(404));
            assertThrows(SourceChangedException.class, () -> s.read(10, ByteBuffer.allocate(10)));
        }
    }

    @Test
    void aNewSizeUnderTheSameGenerationIsRefused() throws Exception {
        answer(partial("bytes 0-9/1000", new byte[10], 1));
        try (GcsSource s = source()) {
            assertEquals(10, s.read(0, ByteBuffer.allocate(10)));
            answer(partial("bytes 10-19/2000", new byte[10], 1));
            IOException e = assertThrows(IOException.class, () -> s.read(10, ByteBuffer.allocate(10)));
            assertCode(ErrorCode.RANGE_NOT_HONOURED, e);
        }
    }

    @Test
    void aGzipStoredObjectIsRefusedClearly() throws Exception {
        // What Cloud Storage does for a gzip-stored object without Accept-Encoding: gzip: decompress, ignore Range.
        StorageException e = abandoned(ScriptedRangeServer.endless(200, "x-goog-generation: 1",
                "x-goog-stored-content-encoding: gzip", "Transfer-Encoding: chunked"), 100, StorageException.class);
        assertEquals(ErrorCode.IO_ERROR, ErrorCode.of(e), "a property of the object, not a misbehaving server");
        assertTrue(e.getMessage().startsWith("gs://b/m.safetensors: the object is stored with Content-Encoding 'gzip'"),
                e.getMessage());
    }

    @Test
    void aCompressedResponseIsRefused() {
        answer(partial("bytes 0-9/1000", new byte[10], 1).withHeader("Content-Encoding", "gzip"));
        IOException e = assertThrows(IOException.class, () -> source().read(0, ByteBuffer.allocate(10)));
        assertCode(ErrorCode.IO_ERROR, e);
        assertTrue(e.getMessage().contains("'gzip'"), e.getMessage());
    }

    @Test
    void aResponseWithoutAGenerationIsRefused() {
        answer(aResponse().withStatus(206).withHeader("Content-Range", "bytes 0-9/1000").withBody(new byte[10]));
        IOException e = assertThrows(IOException.class, () -> source().read(0, ByteBuffer.allocate(10)));
        assertCode(ErrorCode.IO_ERROR, e);
        assertTrue(e.getMessage().contains("no x-goog-generation"), e.getMessage());
    }

    @Test
    void theRequestAsksForIdentityEncoding() throws Exception {
        answer(partial("bytes 0-9/1000", new byte[10], 1));
        try (GcsSource s = source()) {
            s.read(0, ByteBuffer.allocate(10));
        }
        assertEquals("identity", server.wireMock.getAllServeEvents().get(0).getRequest().getHeader("Accept-Encoding"));
    }
}
