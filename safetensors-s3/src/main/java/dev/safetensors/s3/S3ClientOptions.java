package dev.safetensors.s3;

import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.profiles.ProfileFile;
import software.amazon.awssdk.profiles.ProfileProperty;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * How to build the {@link S3Client} this backend uses when the caller does not bring one. Immutable.
 *
 * <p>Everything not set here comes from the SDK's own configuration chain: region ({@code AWS_REGION},
 * {@code aws.region}, profiles), credentials (environment, system properties, profiles, SSO, web identity,
 * container and instance roles), and the endpoint ({@code AWS_ENDPOINT_URL_S3}, {@code AWS_ENDPOINT_URL},
 * {@code endpoint_url} in a profile). So pointing at MinIO or another compatible store usually needs no code.
 *
 * <h2>Addressing</h2>
 * With {@code pathStyle} {@code null} (the default) the addressing follows the endpoint: a custom endpoint (set here,
 * or by {@code AWS_ENDPOINT_URL_S3}, {@code AWS_ENDPOINT_URL}, the {@code aws.endpointUrlS3} and
 * {@code aws.endpointUrl} properties, or the profile's {@code endpoint_url}) is an S3-compatible store, addressed
 * path-style ({@code endpoint/bucket/key}), because a store reached as {@code localhost} or by an internal name has
 * no {@code bucket.host} DNS entries; AWS itself stays virtual-hosted ({@code bucket.endpoint/key}). One switch
 * overrides either way: {@code pathStyle} {@code true} or {@code false} here, or, when it is {@code null}, the
 * environment variable {@code SAFETENSORS_S3_PATH_STYLE=true|false}.
 *
 * <h2>Transport</h2>
 * The client always uses the JDK's {@code HttpURLConnection} transport (a body read to its end returns its
 * connection to the keep-alive pool; an aborted one is dropped, never drained), computes request and response
 * checksums only when an operation requires them (a ranged GET cannot be checked against a whole-object checksum),
 * and does not retry by itself: {@link S3Source} retries as its {@link dev.safetensors.spi.RemotePolicy} says, so
 * the SDK never waits on a server's {@code Retry-After}.
 *
 * @param endpoint  the endpoint to use instead of the one the SDK resolves, such as {@code http://127.0.0.1:9000},
 *                  or {@code null}
 * @param pathStyle {@code true} for {@code endpoint/bucket/key}, {@code false} for {@code bucket.endpoint/key},
 *                  {@code null} to decide from the endpoint as described above
 */
public record S3ClientOptions(URI endpoint, Boolean pathStyle) {
    /** The SDK's configuration chain alone: no endpoint override, addressing decided from the endpoint. */
    public static final S3ClientOptions DEFAULT = new S3ClientOptions(null, null);

    /**
     * The system property {@link S3SourceProvider#S3SourceProvider() S3SourceProvider()} and
     * {@link S3ObjectWriter#S3ObjectWriter() S3ObjectWriter()} take their endpoint from:
     * how a tool that finds the provider through {@link java.util.ServiceLoader} (the {@code safetensors} command's
     * {@code --s3-endpoint}) configures it without naming this module's types.
     */
    public static final String ENDPOINT_PROPERTY = "safetensors.s3.endpoint";

    /**
     * The system property {@link S3SourceProvider#S3SourceProvider() S3SourceProvider()} and
     * {@link S3ObjectWriter#S3ObjectWriter() S3ObjectWriter()} take {@code pathStyle} from,
     * {@code true} or {@code false} (the command's {@code --s3-path-style}); unset, {@code null}.
     */
    public static final String PATH_STYLE_PROPERTY = "safetensors.s3.pathStyle";

    /** The environment variable that decides the addressing when {@code pathStyle} is {@code null}. */
    public static final String PATH_STYLE_VARIABLE = "SAFETENSORS_S3_PATH_STYLE";

    /**
     * The options {@value #ENDPOINT_PROPERTY} and {@value #PATH_STYLE_PROPERTY} name, as read when a provider was
     * constructed.
     *
     * @param endpoint  the endpoint property's value, or {@code null}
     * @param pathStyle the path-style property's value, or {@code null}
     * @return the options; {@link #DEFAULT} when both are unset
     * @throws StorageException {@link dev.safetensors.ErrorCode#INVALID_ENDPOINT} if the endpoint is not an absolute
     *                          {@code http(s)} URL or the path style is neither {@code true} nor {@code false}
     */
    static S3ClientOptions fromProperties(String endpoint, String pathStyle) throws StorageException {
        URI uri = null;
        if (endpoint != null && !endpoint.isBlank()) {
            try {
                uri = new URI(endpoint.trim());
            } catch (URISyntaxException e) {
                throw badEndpoint();
            }
            String scheme = uri.getScheme();
            if (scheme == null || uri.getHost() == null
                    || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))) {
                throw badEndpoint();
            }
        }
        Boolean style = null;
        if (pathStyle != null && !pathStyle.isBlank()) {
            switch (pathStyle.trim().toLowerCase(Locale.ROOT)) {
                case "true" -> style = Boolean.TRUE;
                case "false" -> style = Boolean.FALSE;
                default -> throw new StorageException(ErrorCode.INVALID_ENDPOINT, "s3", "the " + PATH_STYLE_PROPERTY
                        + " property is neither true nor false");
            }
        }
        return uri == null && style == null ? DEFAULT : new S3ClientOptions(uri, style);
    }

    private static StorageException badEndpoint() {
        // not quoted: an endpoint may carry a password before '@'
        return new StorageException(ErrorCode.INVALID_ENDPOINT, "s3", "the " + ENDPOINT_PROPERTY
                + " property is not an absolute http(s) URL");
    }

    /**
     * @param endpoint the endpoint override, or {@code null} for the SDK's own
     * @return these options with that endpoint
     */
    public S3ClientOptions withEndpoint(URI endpoint) {
        return new S3ClientOptions(endpoint, pathStyle);
    }

    /**
     * @param pathStyle whether to use path-style addressing, or {@code null} to decide from the endpoint
     * @return these options with that addressing
     */
    public S3ClientOptions withPathStyle(Boolean pathStyle) {
        return new S3ClientOptions(endpoint, pathStyle);
    }

    /**
     * A client builder set up with these options, for callers who want to add their own settings (credentials,
     * region) before building.
     *
     * @return a new builder
     */
    public S3ClientBuilder clientBuilder() {
        S3ClientBuilder builder = S3Client.builder()
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()))
                .forcePathStyle(resolvePathStyle(System.getenv(), System.getProperties()::getProperty));
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

    /**
     * @param env        the environment
     * @param properties the system properties
     * @return the addressing to use: the explicit choice, else {@value #PATH_STYLE_VARIABLE}, else path-style exactly
     *         when a custom endpoint is configured
     */
    boolean resolvePathStyle(Map<String, String> env, java.util.function.UnaryOperator<String> properties) {
        if (pathStyle != null) {
            return pathStyle;
        }
        String forced = env.get(PATH_STYLE_VARIABLE);
        if (forced != null && !forced.isBlank()) {
            return Boolean.parseBoolean(forced.trim());
        }
        return endpoint != null || configuredEndpoint(env, properties).isPresent();
    }

    /**
     * @param env        the environment
     * @param properties the system properties
     * @return whether the endpoint the client would use (this one, else the configured one) {@linkplain
     *         dev.safetensors.spi.SourceNames#mayCarryUserInfo may carry user information}, which is never sent
     */
    boolean endpointCarriesUserInfo(Map<String, String> env, java.util.function.UnaryOperator<String> properties) {
        String used = endpoint != null ? endpoint.toString() : configuredEndpoint(env, properties).orElse(null);
        return used != null && dev.safetensors.spi.SourceNames.mayCarryUserInfo(used);
    }

    /** The endpoint the SDK will use instead of AWS's, by the SDK's own precedence. */
    private static Optional<String> configuredEndpoint(Map<String, String> env,
                                                       java.util.function.UnaryOperator<String> properties) {
        String ignore = env.get("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS");
        if (ignore != null && ignore.trim().toLowerCase(Locale.ROOT).equals("true")) {
            return Optional.empty();
        }
        for (String value : new String[] {properties.apply("aws.endpointUrlS3"), env.get("AWS_ENDPOINT_URL_S3"),
                properties.apply("aws.endpointUrl"), env.get("AWS_ENDPOINT_URL")}) {
            if (value != null && !value.isBlank()) {
                return Optional.of(value);
            }
        }
        try {
            String profile = Optional.ofNullable(properties.apply("aws.profile"))
                    .or(() -> Optional.ofNullable(env.get("AWS_PROFILE"))).orElse("default");
            return ProfileFile.defaultProfileFile().profile(profile)
                    .flatMap(p -> p.property(ProfileProperty.ENDPOINT_URL));
        } catch (RuntimeException e) {
            // An unreadable profile file is the SDK's to report when it builds the client; addressing stays AWS's.
            return Optional.empty();
        }
    }
}
