package dev.safetensors.s3;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import java.net.URI;
import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What only S3 shows; the common provider contract is {@link S3ProviderContractTest}.
 *
 * <p>Alone ({@code @Isolated}): it sets the S3 endpoint system properties, which every S3 client built from the
 * defaults reads.
 */
@Isolated
class S3SourceProviderTest {

    @Test
    void supportsTheS3SchemeOnly() {
        S3SourceProvider provider = new S3SourceProvider();
        assertTrue(provider.supports(Location.parse("s3://b/k")));
        assertTrue(provider.supports(Location.parse("S3://b/k")));
        assertFalse(provider.supports(Location.parse("gs://b/k")));
        assertFalse(provider.supports(Location.parse("https://b.s3.amazonaws.com/k")));
        assertFalse(provider.supports(Location.parse("/local/file")));
    }

    @Test
    void aMalformedUriIsAnInvalidSource() throws Exception {
        try (S3SourceProvider provider = new S3SourceProvider()) {
            for (String uri : new String[] {"s3://bucket-only", "s3://bucket/", "s3://user@bucket/k",
                    "s3://bucket/k?other=1"}) {
                InvalidLocationException e = assertThrows(InvalidLocationException.class,
                        () -> provider.open(Location.parse(uri)), uri);
                assertEquals(ErrorCode.INVALID_SOURCE, e.code(), uri);
            }
        }
    }

    @Test
    void opensSourcesThatReadThroughTheGivenClient() throws Exception {
        try (WireMockS3 s3 = new WireMockS3()) {
            byte[] content = SampleCheckpoint.file(64, 100);
            s3.put("dir/m.safetensors", StoredObject.of(content, "\"e\""));
            try (RandomAccessSource source = new S3SourceProvider(s3.client)
                    .open(Location.parse("s3://models/dir/m.safetensors"))) {
                assertInstanceOf(S3Source.class, source);
                ByteBuffer dst = ByteBuffer.allocate(content.length);
                source.readFully(0, dst);
                assertArrayEquals(content, dst.array());
                assertEquals("s3://models/dir/m.safetensors", source.name());
            }
        }
    }

    @Test
    void theDefaultClientFollowsTheSdkConfigurationWithAnEndpointAndPathStyle() throws Exception {
        // Region and keys come from the aws.region / aws.accessKeyId / aws.secretAccessKey system properties that
        // the build sets, as they would from AWS_REGION and friends.
        try (WireMockS3 s3 = new WireMockS3()) {
            s3.put("k", StoredObject.of(new byte[10], "\"e\""));
            S3ClientOptions options = S3ClientOptions.DEFAULT
                    .withEndpoint(URI.create("http://127.0.0.1:" + s3.server.port())).withPathStyle(true);
            try (RandomAccessSource source = new S3SourceProvider(options).open(Location.parse("s3://models/k"))) {
                assertEquals(10, source.size());
            }
            String authorization = s3.requests().get(0).getHeader("Authorization");
            assertTrue(authorization.contains("Credential=test-access-key/") && authorization.contains("us-east-1"),
                    authorization);
        }
    }

    @Test
    void theNoArgumentProviderTakesItsEndpointAndAddressingFromThePropertiesWhenConstructed() throws Exception {
        try (WireMockS3 s3 = new WireMockS3()) {
            s3.put("k", StoredObject.of(new byte[10], "\"e\""));
            S3SourceProvider provider;
            System.setProperty(S3ClientOptions.ENDPOINT_PROPERTY, "http://127.0.0.1:" + s3.server.port());
            System.setProperty(S3ClientOptions.PATH_STYLE_PROPERTY, "true");
            try {
                provider = new S3SourceProvider();
            } finally {
                System.clearProperty(S3ClientOptions.ENDPOINT_PROPERTY);
                System.clearProperty(S3ClientOptions.PATH_STYLE_PROPERTY);
            }
            // the properties are gone: what the provider read when it was constructed is what it uses
            try (provider; RandomAccessSource source = provider.open(dev.safetensors.Location.parse("s3://models/k"))) {
                assertEquals(10, source.size());
            }
            assertEquals("/models/k", s3.requests().get(0).getUrl().split("\\?", 2)[0],
                    "path-style, at the endpoint of the property");
        }
    }

    @Test
    void aMalformedEndpointPropertyFailsTheFirstOpen() {
        System.setProperty(S3ClientOptions.ENDPOINT_PROPERTY, "not a url");
        S3SourceProvider provider;
        try {
            provider = new S3SourceProvider();
        } finally {
            System.clearProperty(S3ClientOptions.ENDPOINT_PROPERTY);
        }
        try (provider) {
            dev.safetensors.StorageException e = assertThrows(dev.safetensors.StorageException.class,
                    () -> provider.open(dev.safetensors.Location.parse("s3://models/m.safetensors")));
            assertEquals(ErrorCode.INVALID_ENDPOINT, e.code());
        }
    }

    @Test
    void anEndpointWithAPasswordIsRefusedBeforeAnyRequestAndNeverShown() {
        for (String endpoint : new String[]{"http://user:PASSWORD@127.0.0.1:1", "http://user:PASS%2FWORD@127.0.0.1:1/"}) {
            try (S3SourceProvider provider = new S3SourceProvider(S3ClientOptions.DEFAULT.withEndpoint(
                    URI.create(endpoint)))) {
                dev.safetensors.StorageException e = assertThrows(dev.safetensors.StorageException.class,
                        () -> provider.open(Location.parse("s3://models/m.safetensors")));
                assertEquals(ErrorCode.INVALID_ENDPOINT, e.code());
                java.io.StringWriter all = new java.io.StringWriter();
                e.printStackTrace(new java.io.PrintWriter(all));
                assertFalse(all.toString().contains("PASS") || all.toString().contains("user:"), all.toString());
            }
        }
        String before = System.getProperty("aws.endpointUrl");
        System.setProperty("aws.endpointUrl", "http://user:PASSWORD@127.0.0.1:1");
        try (S3SourceProvider provider = new S3SourceProvider()) {
            dev.safetensors.StorageException e = assertThrows(dev.safetensors.StorageException.class,
                    () -> provider.list(dev.safetensors.Location.parse("s3://models/"),
                            dev.safetensors.ListOptions.DEFAULT));
            assertEquals(ErrorCode.INVALID_ENDPOINT, e.code());
            assertFalse(e.getMessage().contains("PASSWORD"), e.getMessage());
        } finally {
            if (before == null) {
                System.clearProperty("aws.endpointUrl");
            } else {
                System.setProperty("aws.endpointUrl", before);
            }
        }
    }
}
