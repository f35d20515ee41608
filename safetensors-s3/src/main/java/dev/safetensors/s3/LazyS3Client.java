package dev.safetensors.s3;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;

import java.util.Objects;

/**
 * The one client a provider ({@link S3SourceProvider}, {@link S3ObjectWriter}) sends its requests with: either the
 * caller's, used as it is and never closed here, or one built on first use from {@link S3ClientOptions} (or from the
 * system properties {@value S3ClientOptions#ENDPOINT_PROPERTY} and {@value S3ClientOptions#PATH_STYLE_PROPERTY} as
 * they were when the provider was constructed), closed by {@link #close()}. Building it late lets a provider found
 * through {@link java.util.ServiceLoader} be constructed where no region or credentials are configured. Thread-safe.
 */
final class LazyS3Client {
    /** The client's options; {@code null} until the first use for the system properties'. */
    private S3ClientOptions options;
    /** The system properties read at construction, parsed on the first use (a bad one fails it). */
    private final String endpointProperty;
    private final String pathStyleProperty;
    private final boolean owned;
    private S3Client client;

    private LazyS3Client(S3ClientOptions options, String endpointProperty, String pathStyleProperty,
                         S3Client client) {
        this.options = options;
        this.endpointProperty = endpointProperty;
        this.pathStyleProperty = pathStyleProperty;
        this.client = client;
        this.owned = client == null;
    }

    /** @return a client to build from the system properties as they are now */
    static LazyS3Client fromSystemProperties() {
        return new LazyS3Client(null, System.getProperty(S3ClientOptions.ENDPOINT_PROPERTY),
                System.getProperty(S3ClientOptions.PATH_STYLE_PROPERTY), null);
    }

    /** @return a client to build from these options on first use */
    static LazyS3Client of(S3ClientOptions options) {
        return new LazyS3Client(Objects.requireNonNull(options, "options"), null, null, null);
    }

    /** @return the caller's client, never closed here */
    static LazyS3Client given(S3Client client) {
        return new LazyS3Client(null, null, null, Objects.requireNonNull(client, "client"));
    }

    /**
     * @return the client, built now if this is its first use
     * @throws StorageException {@link ErrorCode#INVALID_ENDPOINT} for a malformed endpoint property or an endpoint
     *                          that carries user information; {@link ErrorCode#IO_ERROR} if the SDK cannot configure
     *                          a client (no region)
     */
    synchronized S3Client get() throws StorageException {
        if (client == null) {
            if (options == null) {
                options = S3ClientOptions.fromProperties(endpointProperty, pathStyleProperty);
            }
            if (options.endpointCarriesUserInfo(System.getenv(), System.getProperties()::getProperty)) {
                // not quoted: the part before '@' may be a password
                throw new StorageException(ErrorCode.INVALID_ENDPOINT, "s3", "the S3 endpoint (the one given, or"
                        + " AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL or the profile's endpoint_url) carries user"
                        + " information (a name or password before '@'), which is never sent nor shown: give the"
                        + " credentials as AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or a profile");
            }
            try {
                client = options.buildClient();
            } catch (SdkException e) {
                throw new StorageException(ErrorCode.IO_ERROR, "s3",
                        "cannot configure the S3 client (set AWS_REGION or a profile region): " + e.getMessage(), e);
            }
        }
        return client;
    }

    /** Closes the client if it was built here; a caller's client stays open. Idempotent. */
    synchronized void close() {
        if (owned && client != null) {
            client.close();
            client = null;
        }
    }
}
