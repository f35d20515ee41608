package dev.safetensors.s3;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.Map;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Path-style addressing for S3-compatible stores, virtual-hosted for AWS, and the one switch that overrides. */
class S3ClientOptionsTest {
    private static final UnaryOperator<String> NO_PROPERTIES = name -> null;
    /** No variables; the build points {@code aws.configFile} at a missing file, so no profile endpoint either. */
    private static final Map<String, String> NO_PROFILE = Map.of();

    @Test
    void awsItselfStaysVirtualHosted() {
        assertFalse(S3ClientOptions.DEFAULT.resolvePathStyle(NO_PROFILE, NO_PROPERTIES));
    }

    @Test
    void aCustomEndpointFromTheApiOrTheEnvironmentIsPathStyle() {
        assertTrue(S3ClientOptions.DEFAULT.withEndpoint(URI.create("http://localhost:9000"))
                .resolvePathStyle(NO_PROFILE, NO_PROPERTIES));
        assertTrue(S3ClientOptions.DEFAULT.resolvePathStyle(Map.of("AWS_ENDPOINT_URL_S3", "http://minio:9000"),
                NO_PROPERTIES));
        assertTrue(S3ClientOptions.DEFAULT.resolvePathStyle(Map.of("AWS_ENDPOINT_URL", "http://minio:9000"),
                NO_PROPERTIES));
        assertTrue(S3ClientOptions.DEFAULT.resolvePathStyle(NO_PROFILE,
                name -> name.equals("aws.endpointUrlS3") ? "http://minio:9000" : null));
    }

    @Test
    void ignoredConfiguredEndpointsLeaveAwsAddressing() {
        assertFalse(S3ClientOptions.DEFAULT.resolvePathStyle(Map.of("AWS_ENDPOINT_URL", "http://minio:9000",
                "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "true"), NO_PROPERTIES));
    }

    @Test
    void theSwitchOverridesEitherWay() {
        S3ClientOptions custom = S3ClientOptions.DEFAULT.withEndpoint(URI.create("http://localhost:9000"));
        assertFalse(custom.withPathStyle(false).resolvePathStyle(NO_PROFILE, NO_PROPERTIES));
        assertTrue(S3ClientOptions.DEFAULT.withPathStyle(true).resolvePathStyle(NO_PROFILE, NO_PROPERTIES));
        assertFalse(custom.resolvePathStyle(Map.of(S3ClientOptions.PATH_STYLE_VARIABLE, "false"), NO_PROPERTIES));
        assertTrue(S3ClientOptions.DEFAULT.resolvePathStyle(Map.of(S3ClientOptions.PATH_STYLE_VARIABLE, "true"),
                NO_PROPERTIES));
    }

    @Test
    void thePropertiesGiveTheEndpointAndTheAddressing() throws Exception {
        assertSame(S3ClientOptions.DEFAULT, S3ClientOptions.fromProperties(null, " "));
        S3ClientOptions options = S3ClientOptions.fromProperties("http://127.0.0.1:9000", "TRUE");
        assertEquals(URI.create("http://127.0.0.1:9000"), options.endpoint());
        assertEquals(Boolean.TRUE, options.pathStyle());
        assertEquals(Boolean.FALSE, S3ClientOptions.fromProperties(null, "false").pathStyle());
    }

    @Test
    void aMalformedPropertyIsAnInvalidEndpointThatNeverQuotesIt() {
        for (String endpoint : new String[] {"127.0.0.1:9000", "ftp://host/", "http://user:SECRET@ho st/", "http:/x"}) {
            StorageException e = assertThrows(StorageException.class,
                    () -> S3ClientOptions.fromProperties(endpoint, null), endpoint);
            assertEquals(ErrorCode.INVALID_ENDPOINT, e.code());
            assertFalse(e.getMessage().contains("SECRET"), e.getMessage());
        }
        StorageException e = assertThrows(StorageException.class, () -> S3ClientOptions.fromProperties(null, "yes"));
        assertEquals(ErrorCode.INVALID_ENDPOINT, e.code());
    }
}
