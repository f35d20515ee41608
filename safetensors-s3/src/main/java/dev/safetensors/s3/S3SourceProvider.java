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
    private final LazyS3Client client;
    private final RemotePolicy policy;

    /**
     * A provider whose client comes from the SDK's configuration chain and the system properties
     * {@value S3ClientOptions#ENDPOINT_PROPERTY} and {@value S3ClientOptions#PATH_STYLE_PROPERTY}, read now; a
     * malformed one fails the first {@link #open} with {@link ErrorCode#INVALID_ENDPOINT}.
     */
    public S3SourceProvider() {
        this.client = LazyS3Client.fromSystemProperties();
        this.policy = RemotePolicy.DEFAULT;
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
        this.client = LazyS3Client.of(options);
        this.policy = Objects.requireNonNull(policy, "policy");
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
        this.client = LazyS3Client.given(client);
        this.policy = Objects.requireNonNull(policy, "policy");
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
        return S3Source.open(client.get(), location, policy);
    }

    /**
     * Lists an {@code s3://BUCKET/PREFIX/} with {@code ListObjectsV2}: ceil(N / page size) requests for N keys.
     *
     * @throws IOException {@link ErrorCode#INVALID_SOURCE} if the URI names no bucket; a {@link StorageException} if
     *                     no client can be configured
     */
    @Override
    public Listing list(Location prefix, ListOptions options) throws IOException {
        return new S3PrefixListing(client.get(), prefix, options, policy);
    }

    /** Closes the client this provider built, if any; a client passed in stays open. Idempotent. */
    @Override
    public void close() {
        client.close();
    }
}
