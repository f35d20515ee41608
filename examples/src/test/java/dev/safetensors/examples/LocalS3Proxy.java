package dev.safetensors.examples;

import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;

import java.net.URI;
import java.nio.file.Path;
import java.util.Properties;

/**
 * s3proxy on a loopback port over a folder (each subfolder a bucket, each file an object), checking AWS signatures
 * made with the given keys: the one way the examples' tests start it.
 */
final class LocalS3Proxy implements AutoCloseable {
    private final BlobStoreContext context;
    private final S3Proxy proxy;

    private LocalS3Proxy(BlobStoreContext context, S3Proxy proxy) {
        this.context = context;
        this.proxy = proxy;
    }

    /**
     * @param store     the folder whose subfolders are the buckets
     * @param accessKey the access key clients must sign with
     * @param secretKey the secret key clients must sign with
     * @return a started server
     * @throws Exception if it does not start
     */
    static LocalS3Proxy start(Path store, String accessKey, String secretKey) throws Exception {
        Properties properties = new Properties();
        properties.setProperty("jclouds.filesystem.basedir", store.toString());
        BlobStoreContext context = ContextBuilder.newBuilder("filesystem").overrides(properties)
                .build(BlobStoreContext.class);
        S3Proxy proxy = S3Proxy.builder().blobStore(context.getBlobStore()).endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, accessKey, secretKey).build();
        proxy.start();
        // start() returns once Jetty's start() has, so STARTED is the state it reports now: checked, never polled
        if (!proxy.getState().equals("STARTED")) {
            proxy.stop();
            context.close();
            throw new IllegalStateException("s3proxy did not start: " + proxy.getState());
        }
        return new LocalS3Proxy(context, proxy);
    }

    /** @return the loopback port */
    int port() {
        return proxy.getPort();
    }

    /** @return {@code http://127.0.0.1:PORT} */
    String endpoint() {
        return "http://127.0.0.1:" + port();
    }

    @Override
    public void close() throws Exception {
        proxy.stop();
        context.close();
    }
}
