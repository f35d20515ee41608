package dev.safetensors.s3;

import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

import java.net.URI;

/**
 * How to build the {@link S3Client} this backend uses when the caller does not bring one. Immutable.
 *
 * <p>Everything not set here comes from the SDK's own configuration chain: region ({@code AWS_REGION},
 * {@code aws.region}, profiles), credentials (environment, system properties, profiles, SSO, web identity,
 * container and instance roles), and the endpoint ({@code AWS_ENDPOINT_URL_S3}, {@code AWS_ENDPOINT_URL},
 * {@code endpoint_url} in a profile). So pointing at MinIO or another compatible store usually needs no code.
 *
 * <p>The client always uses the JDK's {@code HttpURLConnection} transport (a closed body is not drained) and
 * computes request and response checksums only when an operation requires them: a ranged GET cannot be checked
 * against a whole-object checksum.
 *
 * @param endpoint  the endpoint to use instead of the one the SDK resolves, such as {@code http://127.0.0.1:9000},
 *                  or {@code null}
 * @param pathStyle whether to address buckets as {@code endpoint/bucket/key} rather than {@code bucket.endpoint/key},
 *                  as many compatible stores need
 */
public record S3ClientOptions(URI endpoint, boolean pathStyle) {
    /** The SDK's configuration chain alone: no endpoint override, virtual-hosted addressing. */
    public static final S3ClientOptions DEFAULT = new S3ClientOptions(null, false);

    /**
     * @param endpoint the endpoint override, or {@code null} for the SDK's own
     * @return these options with that endpoint
     */
    public S3ClientOptions withEndpoint(URI endpoint) {
        return new S3ClientOptions(endpoint, pathStyle);
    }

    /**
     * @param pathStyle whether to use path-style addressing
     * @return these options with that addressing
     */
    public S3ClientOptions withPathStyle(boolean pathStyle) {
        return new S3ClientOptions(endpoint, pathStyle);
    }

    /**
     * A client builder set up with these options, for callers who want to add their own settings (credentials,
     * region, retry policy) before building.
     *
     * @return a new builder
     */
    public S3ClientBuilder clientBuilder() {
        S3ClientBuilder builder = S3Client.builder()
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .forcePathStyle(pathStyle);
        if (endpoint != null) {
            builder.endpointOverride(endpoint);
        }
        return builder;
    }

    /**
     * @return a new client with these options and the SDK's configuration chain; the caller closes it
     * @throws software.amazon.awssdk.core.exception.SdkClientException if the chain yields no region
     */
    public S3Client buildClient() {
        return clientBuilder().build();
    }
}
