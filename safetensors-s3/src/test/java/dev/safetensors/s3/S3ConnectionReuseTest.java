package dev.safetensors.s3;

import dev.safetensors.RandomAccessSource;
import dev.safetensors.fixtures.ConnectionCountingProxy;
import dev.safetensors.testing.TensorReadPattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reading every tensor of a 100-tensor object from s3proxy, reached by host name ({@code localhost}) with the
 * addressing decided from the endpoint, reuses one connection; the baseline in the same run closes each range after
 * one byte, which aborts its request.
 */
class S3ConnectionReuseTest {
    private static final int TENSORS = 100;
    private static final int TENSOR_BYTES = 256 * 1024;
    private static S3ProxyServer s3;
    private static byte[] content;

    @BeforeAll
    static void start() throws Exception {
        s3 = S3ProxyServer.shared();
        content = TensorReadPattern.object(TENSORS, TENSOR_BYTES);
        s3.put("model.safetensors", content);
    }


    private static S3Client clientThrough(ConnectionCountingProxy proxy) {
        // No path-style choice: a custom endpoint makes it path-style, so "localhost" needs no bucket.localhost.
        return S3ClientOptions.DEFAULT.withEndpoint(URI.create("http://localhost:" + proxy.port())).clientBuilder()
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                        S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)))
                .build();
    }

    @Test
    void everyTensorOfAHundredIsReadOverOneConnection() throws Exception {
        int port = s3.endpoint.getPort();
        S3Location location = new S3Location(S3ProxyServer.BUCKET, "model.safetensors", null);
        int reused;
        try (ConnectionCountingProxy proxy = new ConnectionCountingProxy(port);
             S3Client client = clientThrough(proxy);
             RandomAccessSource source = S3Source.open(client, location)) {
            TensorReadPattern.readEveryTensor(source, content, TENSORS, TENSOR_BYTES);
            assertEquals(TENSORS + 1, source.statistics().requests());
            reused = proxy.connections();
        }
        int dropped;
        try (ConnectionCountingProxy proxy = new ConnectionCountingProxy(port);
             S3Client client = clientThrough(proxy);
             RandomAccessSource source = S3Source.open(client, location)) {
            for (int t = 0; t < TENSORS; t++) {
                try (ReadableByteChannel ch = source.openRange(TensorReadPattern.PREFIX + (long) t * TENSOR_BYTES,
                        TENSOR_BYTES)) {
                    assertTrue(ch.read(ByteBuffer.allocate(1)) > 0);
                }
            }
            dropped = proxy.connections();
        }
        System.out.println("S3 connections for " + TENSORS + " tensors: " + reused + " read to their length; "
                + dropped + " closed after one byte (baseline)");
        assertEquals(1, reused, "the header read and 100 tensor reads share one connection");
        // HttpURLConnection's keep-alive cleaner drains a small remainder (up to 512 KiB) of an aborted body in the
        // background, so some early closes keep their connection; the others are dropped.
        assertTrue(dropped > reused, "early closes cost connections: " + dropped);
    }
}
