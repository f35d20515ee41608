package dev.safetensors.s3;

import dev.safetensors.fixtures.LoopbackS3;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import software.amazon.awssdk.services.s3.S3Client;

import java.io.IOException;
import java.net.URI;

/**
 * An in-memory s3proxy of its own, one bucket ({@value S3ProxyServer#BUCKET}), that ignores the request headers it
 * does not implement instead of answering 501 NotImplemented: s3proxy knows neither {@code x-amz-checksum-crc32c}
 * nor {@code x-amz-checksum-type}, which every write sends, so it plays a store that keeps no checksums (it reports
 * none back, and the writer's comparison is tested against WireMock). Signed with the kit's test keys.
 */
final class HeaderTolerantS3Proxy implements AutoCloseable {
    final URI endpoint;
    final S3Client client;
    private final BlobStoreContext context;
    private final S3Proxy proxy;

    HeaderTolerantS3Proxy() throws IOException {
        context = ContextBuilder.newBuilder("transient").credentials(LoopbackS3.ACCESS_KEY, LoopbackS3.SECRET_KEY)
                .build(BlobStoreContext.class);
        context.getBlobStore().createContainerInLocation(null, S3ProxyServer.BUCKET);
        proxy = S3Proxy.builder().blobStore(context.getBlobStore()).endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, LoopbackS3.ACCESS_KEY, LoopbackS3.SECRET_KEY)
                .ignoreUnknownHeaders(true).build();
        try {
            proxy.start();
        } catch (Exception e) {
            context.close();
            throw new IOException("s3proxy did not start", e);
        }
        endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
        client = WireMockS3.client(endpoint, LoopbackS3.ACCESS_KEY, LoopbackS3.SECRET_KEY);
    }

    /** @return client options that reach this server */
    S3ClientOptions options() {
        return S3ClientOptions.DEFAULT.withEndpoint(endpoint).withPathStyle(true);
    }

    @Override
    public void close() throws Exception {
        client.close();
        proxy.stop();
        context.close();
    }
}
