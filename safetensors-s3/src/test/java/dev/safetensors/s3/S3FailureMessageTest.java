package dev.safetensors.s3;

import dev.safetensors.ErrorCode;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.StorageException;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.testing.ManualTime;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.S3Client;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What an S3 failure's message names: the host the request went to, which the SDK's own message leaves out when it
 * chose the endpoint itself, and the service's error code of a refused listing; never a secret.
 */
class S3FailureMessageTest {
    /** The SDK's message for a host that does not resolve: the host is only in its cause. */
    private static final String SDK_UNKNOWN_HOST = "Received an UnknownHostException when attempting to interact"
            + " with a service. See cause for the exact endpoint that is failing to resolve. If this is happening on"
            + " an endpoint that previously worked, there may be a network connectivity issue or your DNS cache"
            + " could be storing endpoints for too long.";

    private final ManualTime time = new ManualTime();

    private RemotePolicy policy() {
        return RemotePolicy.builder().maxAttempts(2).time(time).build();
    }

    /** @return a loopback port nothing listens on */
    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void aHostTheSdkChoseThatDoesNotResolveIsNamedNotCutOff() {
        String host = "models.s3.us-east-1.amazonaws.com";
        SdkClientException failure = SdkClientException.builder().message(SDK_UNKNOWN_HOST)
                .cause(new UnknownHostException(host)).build();
        IOException e = SdkFailureTranslator.noAnswer("s3://models/k", "GET bytes=0-131071", failure,
                URI.create("https://" + host + ":443"));
        assertEquals(ErrorCode.NETWORK, ErrorCode.of(e));
        assertTrue(e.getMessage().contains("GET bytes=0-131071 failed: " + host + ": unknown host"), e.getMessage());
    }

    @Test
    void aRefusedConnectionNamesTheHostAndPortOfReadsAndListings() throws IOException {
        int port = closedPort();
        try (S3Client client = WireMockS3.client(URI.create("http://127.0.0.1:" + port));
             S3Source source = S3Source.open(client, new S3Location(WireMockS3.BUCKET, "k", null), policy())) {
            StorageException read = assertThrows(StorageException.class, () -> source.read(0, ByteBuffer.allocate(8)));
            assertEquals(ErrorCode.NETWORK, read.code());
            assertTrue(read.getMessage().contains("connection refused by 127.0.0.1:" + port), read.getMessage());
            assertFalse(read.getMessage().contains(WireMockS3.SECRET_KEY), read.getMessage());
            try (Listing listing = new S3SourceProvider(client, policy()).list(Location.parse("s3://models/run/"),
                    ListOptions.DEFAULT)) {
                StorageException listed = assertThrows(StorageException.class, listing::hasNext);
                assertEquals(ErrorCode.NETWORK, listed.code());
                assertTrue(listed.getMessage().contains("ListObjectsV2 failed: connection refused by 127.0.0.1:"
                        + port), listed.getMessage());
            }
        }
    }

    @Test
    void aRefusedListingQuotesTheServiceErrorCodeAndTheHost() throws IOException {
        try (WireMockS3 s3 = new WireMockS3()) {
            s3.server.stubFor(get(urlPathMatching("/" + WireMockS3.BUCKET + "/?")).atPriority(1)
                    .withQueryParam("list-type", equalTo("2")).willReturn(aResponse().withStatus(404)
                            .withHeader("Content-Type", "application/xml")
                            .withBody(S3ObjectsTransformer.errorXml("NoSuchBucket"))));
            try (Listing listing = new S3SourceProvider(s3.client, policy()).list(Location.parse("s3://models/run/"),
                    ListOptions.DEFAULT)) {
                SourceNotFoundException e = assertThrows(SourceNotFoundException.class, listing::hasNext);
                assertEquals(ErrorCode.NOT_FOUND, e.code());
                assertTrue(e.getMessage().contains("answered 404 (NoSuchBucket from 127.0.0.1:" + s3.server.port()
                        + ")"), e.getMessage());
                assertFalse(e.getMessage().contains(WireMockS3.SECRET_KEY), e.getMessage());
            }
        }
    }
}
