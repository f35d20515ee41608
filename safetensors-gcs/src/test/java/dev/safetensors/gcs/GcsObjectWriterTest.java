package dev.safetensors.gcs;

import com.google.auth.oauth2.AccessToken;
import com.google.auth.oauth2.GoogleCredentials;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.Location;
import dev.safetensors.SourceAccessDeniedException;
import dev.safetensors.StorageException;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.ObjectWriterProvider;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.spi.UploadOptions;
import dev.safetensors.testing.ManualTime;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.Date;
import java.util.List;
import java.util.ServiceLoader;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.delete;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.matching;
import static com.github.tomakehurst.wiremock.client.WireMock.put;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@link GcsObjectWriter} refuses and how it fails: locations that name no object to create, failures coded
 * and never carrying the credentials nor the session URI, and its registration.
 */
class GcsObjectWriterTest {
    private static final String BUCKET = "writer-failures";
    private static final String TOKEN = "ya29.never-in-a-message";

    private GcsTestServer server;
    private Storage storage;
    private GcsObjectWriter writer;

    @BeforeEach
    void start() {
        server = new GcsTestServer();
        server.wireMock.stubFor(any(anyUrl()).willReturn(aResponse().withTransformers(FakeGcsObjects.NAME)));
        // a bearer token that never expires, so that every request carries it and none refreshes it
        storage = StorageOptions.http()
                .setHost(server.host())
                .setProjectId("test")
                .setCredentials(GoogleCredentials.create(new AccessToken(TOKEN, new Date(Long.MAX_VALUE))))
                .build()
                .getService();
        writer = new GcsObjectWriter(storage, RemotePolicy.builder().maxAttempts(2).time(new ManualTime()).build());
    }

    @AfterEach
    void stop() throws Exception {
        writer.close();
        storage.close();
        server.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"gs://" + BUCKET, "gs://" + BUCKET + "/", "gs://" + BUCKET + "/dir/",
            "gs://" + BUCKET + "/m.safetensors#1712345678901234", "gs://" + BUCKET + "/m.safetensors?generation=5"})
    void aLocationNamingNoObjectToCreateIsInvalidAndMakesNoRequest(String text) {
        Location location = Location.parse(text);
        InvalidLocationException create = assertThrows(InvalidLocationException.class,
                () -> writer.create(location, UploadOptions.DEFAULT));
        assertEquals(ErrorCode.INVALID_SOURCE, create.code());
        InvalidLocationException delete = assertThrows(InvalidLocationException.class,
                () -> writer.delete(location));
        assertEquals(ErrorCode.INVALID_SOURCE, delete.code());
        assertEquals(List.of(), server.requests());
    }

    @Test
    void gsLocationsAreSupportedAndTheWriterIsRegistered() {
        assertTrue(writer.supports(Location.parse("gs://bucket/dir/m.safetensors")));
        assertFalse(writer.supports(Location.parse("s3://bucket/m.safetensors")));
        assertFalse(writer.supports(Location.parse("/tmp/m.safetensors")));
        assertTrue(ServiceLoader.load(ObjectWriterProvider.class).stream()
                .anyMatch(p -> p.type() == GcsObjectWriter.class));
    }

    @Test
    void aRefusedCheckIsAccessDeniedAndQuotesTheServerButNotTheToken() throws Exception {
        server.wireMock.stubFor(get(urlPathMatching("/storage/v1/b/" + BUCKET + "/o/.*")).atPriority(1)
                .willReturn(aResponse().withStatus(403).withHeader("Content-Type", "application/json")
                        .withBody("{\"error\":{\"code\":403,\"message\":\"caller does not have"
                                + " storage.objects.get access\"}}")));
        Location location = Location.parse("gs://" + BUCKET + "/denied.bin");
        SourceAccessDeniedException denied = assertThrows(SourceAccessDeniedException.class,
                () -> writer.create(location, UploadOptions.DEFAULT));
        assertEquals(ErrorCode.ACCESS_DENIED, denied.code());
        assertTrue(denied.getMessage().contains(location.display())
                && denied.getMessage().contains("storage.objects.get access"), denied.getMessage());
        assertFalse(denied.getMessage().contains(TOKEN), denied.getMessage());
        assertEquals(List.of("Bearer " + TOKEN), server.headers("Authorization"), "the token was sent");
    }

    @Test
    void aFailedChunkNamesTheObjectNeverTheSessionUriNorTheToken() throws Exception {
        server.wireMock.stubFor(put(urlPathEqualTo("/upload/storage/v1/b/" + BUCKET + "/o")).atPriority(1)
                .withHeader("Content-Range", matching("bytes [0-9].*"))
                .willReturn(aResponse().withStatus(503)));
        Location location = Location.parse("gs://" + BUCKET + "/failing.bin");
        StorageException failed;
        try (ObjectUpload upload = writer.create(location, UploadOptions.DEFAULT.withParts(
                UploadOptions.MIN_PART_SIZE, 1))) {
            failed = assertThrows(StorageException.class,
                    () -> upload.write(ByteBuffer.wrap(new byte[UploadOptions.MIN_PART_SIZE + 1])));
        }
        assertEquals(ErrorCode.SERVER_ERROR, failed.code());
        String message = String.valueOf(failed.getMessage()) + failed.getCause();
        assertTrue(message.contains(location.display()), message);
        for (String secret : List.of(TOKEN, "upload_id", "session-", "/upload/")) {
            assertFalse(message.contains(secret), secret + " in " + message);
        }
        assertEquals(0, FakeGcsObjects.openSessions(BUCKET));
    }

    @Test
    void aDeleteOfAnAbsentObjectIsOneRequestAndARefusedOneIsAccessDenied() throws Exception {
        writer.delete(Location.parse("gs://" + BUCKET + "/absent.bin"));
        assertEquals(List.of("DELETE /storage/v1/b/" + BUCKET + "/o/absent.bin"), server.requests());
        server.wireMock.stubFor(delete(urlPathMatching("/storage/v1/b/" + BUCKET + "/o/kept.bin")).atPriority(1)
                .willReturn(aResponse().withStatus(403)));
        SourceAccessDeniedException denied = assertThrows(SourceAccessDeniedException.class,
                () -> writer.delete(Location.parse("gs://" + BUCKET + "/kept.bin")));
        assertEquals(ErrorCode.ACCESS_DENIED, denied.code());
    }
}
