package dev.safetensors.s3;

import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URI;
import java.util.Objects;

/**
 * Opens {@link S3Source}s for {@code s3://bucket/key} and {@code s3://bucket/key?versionId=ID} URIs.
 *
 * <p>The no-argument constructor (the one {@link java.util.ServiceLoader} uses) builds one client with
 * {@link S3ClientOptions#DEFAULT}, that is from the SDK's configuration chain, when the first source is opened,
 * and shares it between all the sources it opens for as long as the provider lives. Tools that take an endpoint or
 * path-style addressing from their users pass {@link S3ClientOptions}; programs that manage their own client pass
 * it. Thread-safe.
 */
public final class S3SourceProvider implements RandomAccessSourceProvider {
    private final S3ClientOptions options;
    private S3Client client;

    /** A provider whose client comes from the SDK's configuration chain alone. */
    public S3SourceProvider() {
        this(S3ClientOptions.DEFAULT);
    }

    /** @param options how to build the client, on the first {@link #open} */
    public S3SourceProvider(S3ClientOptions options) {
        this.options = Objects.requireNonNull(options, "options");
    }

    /** @param client the client every source uses; the caller closes it when done with the sources */
    public S3SourceProvider(S3Client client) {
        this.options = null;
        this.client = Objects.requireNonNull(client, "client");
    }

    @Override
    public boolean supports(URI uri) {
        return "s3".equalsIgnoreCase(uri.getScheme());
    }

    /**
     * @throws IOException a {@link MalformedURLException} if the URI is not an {@code s3://bucket/key} URI; an
     *                     {@code IOException} if no client can be configured (for example because no region is set);
     *                     the object itself is first read on the first request
     */
    @Override
    public RandomAccessSource open(URI uri) throws IOException {
        S3Location location;
        try {
            location = S3Location.parse(uri);
        } catch (IllegalArgumentException e) {
            MalformedURLException malformed = new MalformedURLException(e.getMessage());
            malformed.initCause(e);
            throw malformed;
        }
        return S3Source.open(client(), location);
    }

    private synchronized S3Client client() throws IOException {
        if (client == null) {
            try {
                client = options.buildClient();
            } catch (SdkException e) {
                throw new IOException("cannot configure the S3 client (set AWS_REGION or a profile region): "
                        + e.getMessage(), e);
            }
        }
        return client;
    }
}
