package dev.safetensors.gcs;

import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.StorageException;
import dev.safetensors.ErrorCode;
import dev.safetensors.SourceChangedException;
import dev.safetensors.SourceStatistics;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.testing.ManualTime;

import java.nio.ByteBuffer;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Status codes callers must be able to tell apart, and bounded retries. */
class GcsSourceErrorsTest {
    private static GcsTestServer server;

    @BeforeAll
    static void start() {
        server = new GcsTestServer();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static final ManualTime TIME = new ManualTime();

    @BeforeEach
    void reset() {
        server.wireMock.resetAll();
    }

    private static GcsSource source(int attempts) {
        return GcsSource.open(server.storage(attempts), BlobId.of("b", "dir/m.safetensors"),
                RemotePolicy.builder().maxAttempts(attempts).time(TIME).build());
    }

    private static void answer(int status, String message) {
        server.wireMock.stubFor(any(anyUrl()).willReturn(aResponse().withStatus(status)
                .withHeader("Content-Type", "application/json")
                .withBody("{\"error\":{\"code\":" + status + ",\"message\":\"" + message + "\"}}")));
    }

    @Test
    void missingObjectIsNoSuchFileWithTheGsName() {
        answer(404, "No such object: b/dir/m.safetensors");
        NoSuchFileException e = assertThrows(NoSuchFileException.class,
                () -> source(1).read(0, ByteBuffer.allocate(8)));
        assertEquals("gs://b/dir/m.safetensors", e.getFile());
        assertEquals(1, server.ranges().size());
    }

    @Test
    void missingObjectOnAMetadataRequestIsNoSuchFileToo() {
        answer(404, "No such object");
        NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> source(1).size());
        assertEquals("gs://b/dir/m.safetensors", e.getFile());
    }

    @Test
    void forbiddenIsAccessDeniedWithTheServersReason() {
        answer(403, "someone@example.iam.gserviceaccount.com does not have storage.objects.get access");
        AccessDeniedException e = assertThrows(AccessDeniedException.class,
                () -> source(3).read(0, ByteBuffer.allocate(8)));
        assertEquals("gs://b/dir/m.safetensors", e.getFile());
        assertTrue(e.getMessage().contains("HTTP 403") && e.getMessage().contains("storage.objects.get access"),
                e.getMessage());
        assertEquals(1, server.ranges().size(), "403 is not retried");
    }

    @Test
    void unauthorisedIsAccessDenied() {
        answer(401, "Anonymous caller does not have storage.objects.get access");
        AccessDeniedException e = assertThrows(AccessDeniedException.class,
                () -> source(1).read(0, ByteBuffer.allocate(8)));
        assertTrue(e.getMessage().contains("HTTP 401"), e.getMessage());
    }

    @Test
    void aStaleGenerationOnAMetadataRequestIsSourceChanged() {
        answer(412, "At least one of the pre-conditions you specified did not hold.");
        GcsSource pinned = GcsSource.open(server.storage(1), BlobId.of("b", "dir/m.safetensors", 41L),
                RemotePolicy.builder().maxAttempts(1).time(TIME).build());
        SourceChangedException e = assertThrows(SourceChangedException.class, pinned::size);
        assertEquals(ErrorCode.SOURCE_CHANGED, e.code());
        assertTrue(e.getMessage().contains("generation 41"), e.getMessage());
    }

    @Test
    void forbiddenOnAMetadataRequestIsAccessDenied() {
        answer(403, "no access");
        assertThrows(AccessDeniedException.class, () -> source(1).size());
    }

    @Test
    void aTransientFailureIsRetriedWhenASecondAttemptIsAllowed() throws Exception {
        server.wireMock.stubFor(any(anyUrl()).inScenario("flaky").whenScenarioStateIs(STARTED)
                .willReturn(aResponse().withStatus(503)).willSetStateTo("recovered"));
        server.wireMock.stubFor(any(anyUrl()).inScenario("flaky").whenScenarioStateIs("recovered")
                .willReturn(aResponse().withStatus(206).withHeader("Content-Range", "bytes 0-7/100")
                        .withHeader("x-goog-generation", "5").withBody(new byte[8])));
        try (GcsSource s = source(2)) {
            assertEquals(8, s.read(0, ByteBuffer.allocate(8)));
            assertEquals(new SourceStatistics(1, 8, 2), s.statistics(), "one read, two HTTP requests");
        }
        assertEquals(java.util.List.of("bytes=0-7", "bytes=0-7"), server.ranges());
    }

    @Test
    void aTransientFailureIsNotRetriedWithOneAttempt() {
        answer(503, "backend error");
        dev.safetensors.StorageException e = assertThrows(dev.safetensors.StorageException.class,
                () -> source(1).read(0, ByteBuffer.allocate(8)));
        assertEquals(ErrorCode.SERVER_ERROR, e.code());
        assertTrue(e.getMessage().contains("HTTP 503") && e.getMessage().contains("backend error"), e.getMessage());
        assertEquals(1, server.ranges().size());
    }

    @Test
    void retriesStopAtMaxAttempts() {
        answer(503, "backend error");
        int slept = TIME.sleeps().size();
        dev.safetensors.StorageException e = assertThrows(dev.safetensors.StorageException.class,
                () -> source(3).read(0, ByteBuffer.allocate(8)));
        assertEquals(ErrorCode.SERVER_ERROR, e.code());
        assertEquals(3, server.ranges().size());
        assertEquals(2, TIME.sleeps().size() - slept, "two backoffs, on the injected clock");
    }
}
