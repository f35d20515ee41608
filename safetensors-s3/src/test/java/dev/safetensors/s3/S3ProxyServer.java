package dev.safetensors.s3;

import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;

/**
 * A real S3 API server in this JVM: s3proxy over jclouds' in-memory blob store, on a loopback port, checking
 * AWS signatures with the same test keys the build hands the SDK's configuration chain.
 */
final class S3ProxyServer implements AutoCloseable {
    static final String BUCKET = "checkpoints";
    static final String ACCESS_KEY = "test-access-key";
    static final String SECRET_KEY = "test-secret-key";

    final URI endpoint;
    final S3Client client;
    private final S3Proxy proxy;
    private final BlobStoreContext store;

    private static S3ProxyServer shared;

    /**
     * @return the module's one s3proxy, started on first use and left to stop with the test JVM: the classes that use
     *         it write keys of their own, and one start instead of one per class is what sharing saves
     * @throws Exception if it does not start
     */
    static synchronized S3ProxyServer shared() throws Exception {
        if (shared == null) {
            shared = new S3ProxyServer();
        }
        return shared;
    }

    /** A server of its own, for a test that counts every object in its bucket; others share {@link #shared()}. */
    S3ProxyServer() throws Exception {
        store = ContextBuilder.newBuilder("transient").credentials(ACCESS_KEY, SECRET_KEY)
                .build(BlobStoreContext.class);
        proxy = S3Proxy.builder().blobStore(store.getBlobStore()).endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY).build();
        proxy.start();
        // start() returns once Jetty's start() has: STARTED is checked, not polled for
        if (!proxy.getState().equals("STARTED")) {
            throw new IllegalStateException("s3proxy did not start: " + proxy.getState());
        }
        endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
        client = options().clientBuilder().region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
                .build();
        client.createBucket(b -> b.bucket(BUCKET));
    }

    /** @return client options that reach this server */
    S3ClientOptions options() {
        return S3ClientOptions.DEFAULT.withEndpoint(endpoint).withPathStyle(true);
    }

    /** Stores {@code content} under {@code key}, replacing what was there. */
    void put(String key, byte[] content) {
        client.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(content));
    }

    S3Source open(String key) {
        return S3Source.open(client, new S3Location(BUCKET, key, null));
    }

    @Override
    public void close() throws Exception {
        client.close();
        proxy.stop();
        store.close();
    }
}
