package dev.safetensors.s3;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.StorageException;
import dev.safetensors.spi.RemotePolicy;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;

import java.io.IOException;
import java.util.Objects;

/**
 * Opens {@link S3Source}s for {@code s3://bucket/key} and {@code s3://bucket/key?versionId=ID} URIs.
 *
 * <p>The no-argument constructor (the one {@link java.util.ServiceLoader} uses) builds one client, when the first
 * source is opened, from the SDK's configuration chain ({@code AWS_REGION}, {@code AWS_ENDPOINT_URL_S3},
 * {@code AWS_ENDPOINT_URL}, profiles: see {@link S3ClientOptions}) and the system properties
 * {@value S3ClientOptions#ENDPOINT_PROPERTY} and {@value S3ClientOptions#PATH_STYLE_PROPERTY} as they were when it
 * was constructed, and shares it between all the sources it opens; {@link #close()} closes it. Tools that take an endpoint or
 * path-style addressing from their users pass {@link S3ClientOptions}; programs that manage their own client pass
 * it, and it is never closed here. Thread-safe.
 */
public final class S3SourceProvider implements RandomAccessSourceProvider, AutoCloseable {
    /** The client's options; {@code null} until the first open for the no-argument constructor's. */
    private S3ClientOptions options;
    /** The system properties the no-argument constructor read, parsed on the first open (a bad one fails it). */
    private final String endpointProperty;
    private final String pathStyleProperty;
    private final RemotePolicy policy;
    private final boolean ownsClient;
    private S3Client client;

    /**
     * A provider whose client comes from the SDK's configuration chain and the system properties
     * {@value S3ClientOptions#ENDPOINT_PROPERTY} and {@value S3ClientOptions#PATH_STYLE_PROPERTY}, read now; a
     * malformed one fails the first {@link #open} with {@link ErrorCode#INVALID_ENDPOINT}.
     */
    public S3SourceProvider() {
        this.endpointProperty = System.getProperty(S3ClientOptions.ENDPOINT_PROPERTY);
        this.pathStyleProperty = System.getProperty(S3ClientOptions.PATH_STYLE_PROPERTY);
        this.policy = RemotePolicy.DEFAULT;
        this.ownsClient = true;
    }

    /** @param options how to build the client, on the first {@link #open} */
    public S3SourceProvider(S3ClientOptions options) {
        this(options, RemotePolicy.DEFAULT);
    }

    /**
     * @param options how to build the client, on the first {@link #open}
     * @param policy  retries and deadlines of every source
     */
    public S3SourceProvider(S3ClientOptions options, RemotePolicy policy) {
        this.options = Objects.requireNonNull(options, "options");
        this.endpointProperty = null;
        this.pathStyleProperty = null;
        this.policy = Objects.requireNonNull(policy, "policy");
        this.ownsClient = true;
    }

    /** @param client the client every source uses; the caller closes it when done with the sources */
    public S3SourceProvider(S3Client client) {
        this(client, RemotePolicy.DEFAULT);
    }

    /**
     * @param client the client every source uses; the caller closes it when done with the sources
     * @param policy retries and deadlines of every source
     */
    public S3SourceProvider(S3Client client, RemotePolicy policy) {
        this.options = null;
        this.endpointProperty = null;
        this.pathStyleProperty = null;
        this.policy = Objects.requireNonNull(policy, "policy");
        this.client = Objects.requireNonNull(client, "client");
        this.ownsClient = false;
    }

    @Override
    public boolean supports(Location location) {
        return location.scheme().equals("s3");
    }

    /**
     * @throws IOException an {@link InvalidLocationException} ({@link ErrorCode#INVALID_SOURCE}) if the location is not
     *                     an {@code s3://bucket/key} URI; a {@link StorageException} if no client can be configured
     *                     (for example because no region is set); the object itself is first read on the first
     *                     request
     */
    @Override
    public RandomAccessSource open(Location at) throws IOException {
        S3Location location;
        try {
            location = S3Location.parse(at.requireUri());
        } catch (IllegalArgumentException e) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, e.getMessage());
        }
        return S3Source.open(client(), location, policy);
    }

    /**
     * Lists an {@code s3://BUCKET/PREFIX/} with {@code ListObjectsV2}: ceil(N / page size) requests for N keys.
     *
     * @throws IOException {@link ErrorCode#INVALID_SOURCE} if the URI names no bucket; a {@link StorageException} if
     *                     no client can be configured
     */
    @Override
    public Listing list(Location prefix, ListOptions options) throws IOException {
        return new S3PrefixListing(client(), prefix, options, policy);
    }

    /** Closes the client this provider built, if any; a client passed in stays open. Idempotent. */
    @Override
    public synchronized void close() {
        if (ownsClient && client != null) {
            client.close();
            client = null;
        }
    }

    private synchronized S3Client client() throws IOException {
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
}
