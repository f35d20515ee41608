package dev.safetensors.s3;

import dev.safetensors.fixtures.LoopbackS3;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.io.IOException;
import java.net.URI;

/**
 * The test kit's s3proxy ({@link LoopbackS3}, in memory) with what this module's tests add on top: one bucket,
 * {@value #BUCKET}, an SDK client signed with the kit's test keys (the same keys the build hands the SDK's
 * configuration chain), and {@link S3ClientOptions} that reach it.
 */
final class S3ProxyServer implements AutoCloseable {
    static final String BUCKET = "checkpoints";
    static final String ACCESS_KEY = LoopbackS3.ACCESS_KEY;
    static final String SECRET_KEY = LoopbackS3.SECRET_KEY;

    final URI endpoint;
    final S3Client client;
    private final LoopbackS3 server;

    private static S3ProxyServer shared;

    /**
     * @return the module's one s3proxy ({@link LoopbackS3#shared()}), left to stop with the test JVM: the classes
     *         that use it write keys of their own, and one start instead of one per class is what sharing saves
     * @throws IOException if it does not start
     */
    static synchronized S3ProxyServer shared() throws IOException {
        if (shared == null) {
            shared = new S3ProxyServer(LoopbackS3.shared());
        }
        return shared;
    }

    /**
     * A server of its own, for a test that counts every object in its bucket; others share {@link #shared()}.
     *
     * @throws IOException if it does not start
     */
    S3ProxyServer() throws IOException {
        this(LoopbackS3.inMemory());
    }

    private S3ProxyServer(LoopbackS3 server) {
        this.server = server;
        this.endpoint = server.endpoint();
        this.client = options().clientBuilder().region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY,
                        SECRET_KEY)))
                .build();
    }

    /** @return client options that reach this server */
    S3ClientOptions options() {
        return S3ClientOptions.DEFAULT.withEndpoint(endpoint).withPathStyle(true);
    }

    /** Stores {@code content} under {@code key} of {@value #BUCKET}, replacing what was there. */
    void put(String key, byte[] content) {
        server.put(BUCKET, key, content);
    }

    S3Source open(String key) {
        return S3Source.open(client, new S3Location(BUCKET, key, null));
    }

    /** Closes the client, and the server if it is one of its own (the shared one stops with the JVM). */
    @Override
    public void close() {
        client.close();
        server.close();
    }
}
