package dev.safetensors.s3;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.Location;
import dev.safetensors.StorageException;
import dev.safetensors.spi.ObjectWriterProvider;
import dev.safetensors.spi.UploadOptions;
import dev.safetensors.spi.ObjectUpload;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import java.net.URI;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.ServiceLoader;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.put;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@link S3ObjectWriter} decides before it sends anything: what it writes, and what it refuses.
 *
 * <p>Alone ({@code @Isolated}): it sets the S3 endpoint system properties, which every S3 client built from the
 * defaults reads.
 */
@Isolated
class S3ObjectWriterTest {

    @Test
    void theServiceLoaderFindsTheWriter() {
        assertTrue(ServiceLoader.load(ObjectWriterProvider.class).stream()
                .anyMatch(p -> p.type() == S3ObjectWriter.class));
    }

    @Test
    void onlyS3LocationsAreWritten() {
        try (S3ObjectWriter writer = new S3ObjectWriter()) {
            assertTrue(writer.supports(Location.parse("s3://bucket/m.safetensors")));
            assertFalse(writer.supports(Location.parse("gs://bucket/m.safetensors")));
        }
    }

    @Test
    void aVersionAFolderOrNoKeyIsNoObjectToWrite() {
        // no client is built for a location refused: nothing is configured here, and nothing is sent
        try (S3ObjectWriter writer = new S3ObjectWriter(S3ClientOptions.DEFAULT)) {
            for (String refused : List.of("s3://bucket/m.safetensors?versionId=v1", "s3://bucket/models/",
                    "s3://bucket/", "s3://bucket")) {
                InvalidLocationException e = assertThrows(InvalidLocationException.class,
                        () -> writer.create(Location.parse(refused), UploadOptions.DEFAULT), refused);
                assertEquals(ErrorCode.INVALID_SOURCE, e.code(), refused);
                InvalidLocationException delete = assertThrows(InvalidLocationException.class,
                        () -> writer.delete(Location.parse(refused)), refused);
                assertEquals(ErrorCode.INVALID_SOURCE, delete.code(), refused);
            }
        }
    }

    @Test
    void theNoArgumentWriterUsesTheEndpointPropertiesAsTheyWereWhenItWasMade() throws Exception {
        try (WireMockS3 s3 = new WireMockS3()) {
            s3.server.stubFor(put(urlPathEqualTo("/" + WireMockS3.BUCKET + "/k")).atPriority(1)
                    .willReturn(aResponse().withStatus(200).withHeader("ETag", "\"e\"")));
            S3ObjectWriter writer;
            System.setProperty(S3ClientOptions.ENDPOINT_PROPERTY, "http://127.0.0.1:" + s3.server.port());
            System.setProperty(S3ClientOptions.PATH_STYLE_PROPERTY, "true");
            try {
                writer = new S3ObjectWriter();
            } finally {
                System.clearProperty(S3ClientOptions.ENDPOINT_PROPERTY);
                System.clearProperty(S3ClientOptions.PATH_STYLE_PROPERTY);
            }
            try (writer; ObjectUpload upload = writer.create(Location.parse("s3://" + WireMockS3.BUCKET + "/k"),
                    UploadOptions.DEFAULT.withOverwrite(true))) {
                upload.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
                assertEquals(3, upload.commit().size());
            }
            assertEquals(1, s3.requests().size(), "the one PUT reached the endpoint the property named");
        }
    }

    @Test
    void anEndpointCarryingAPasswordIsRefusedWithoutShowingIt() {
        try (S3ObjectWriter writer = new S3ObjectWriter(S3ClientOptions.DEFAULT
                .withEndpoint(URI.create("http://user:hunter2@127.0.0.1:9")).withPathStyle(true))) {
            StorageException e = assertThrows(StorageException.class,
                    () -> writer.create(Location.parse("s3://bucket/m.safetensors"), UploadOptions.DEFAULT));
            assertEquals(ErrorCode.INVALID_ENDPOINT, e.code());
            assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
        }
    }
}
