package dev.safetensors.cli;

import dev.safetensors.fixtures.LoopbackS3;
import dev.safetensors.s3.S3ClientOptions;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/**
 * The plain client the slow tier's throughput figures are compared with, in the same run and through the same
 * proxy: the AWS SDK lists, and the JDK's {@link HttpClient} (its own connection pool, no library of ours) sends
 * ranged GETs to presigned URLs and reads each answer whole, discarding the bytes. It is what an application that
 * needs nothing but the bytes would write, so it measures what the store, the proxy and the machine allow.
 * Thread-safe.
 */
final class PlainS3Client implements AutoCloseable {
    private final S3Client client;
    private final S3Presigner presigner;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** @param endpoint the store (or the proxy in front of it), path-style, with the test kit's keys */
    PlainS3Client(URI endpoint) {
        StaticCredentialsProvider keys = StaticCredentialsProvider.create(AwsBasicCredentials.create(
                LoopbackS3.ACCESS_KEY, LoopbackS3.SECRET_KEY));
        client = S3ClientOptions.DEFAULT.withEndpoint(endpoint).withPathStyle(true).clientBuilder()
                .region(Region.US_EAST_1).credentialsProvider(keys).build();
        presigner = S3Presigner.builder().endpointOverride(endpoint).region(Region.US_EAST_1).credentialsProvider(keys)
                .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build()).build();
    }

    /**
     * @param bucket a bucket
     * @param prefix a prefix in it
     * @return every key under the prefix, every page listed
     */
    List<String> list(String bucket, String prefix) {
        return client.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents().stream()
                .map(S3Object::key).toList();
    }

    /**
     * One ranged GET, its answer read whole.
     *
     * @param bucket a bucket
     * @param key    an object
     * @param first  the range's first byte
     * @param last   the range's last byte (inclusive)
     * @return the bytes the answer held
     * @throws IOException if the answer is not 206 or the exchange fails
     */
    long get(String bucket, String key, long first, long last) throws IOException, InterruptedException {
        URI url;
        try {
            url = presigner.presignGetObject(r -> r.signatureDuration(Duration.ofMinutes(30))
                    .getObjectRequest(g -> g.bucket(bucket).key(key))).url().toURI();
        } catch (java.net.URISyntaxException e) {
            throw new IOException(e);
        }
        HttpRequest request = HttpRequest.newBuilder(url).header("Range", "bytes=" + first + "-" + last).build();
        HttpResponse<InputStream> answer;
        try {
            answer = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            // a pooled connection the store closed while idle (its idle timeout, between two runs): asked again once
            answer = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        }
        long read = 0;
        try (InputStream body = answer.body()) {
            byte[] buffer = new byte[1 << 20];
            for (int n; (n = body.read(buffer)) >= 0; ) {
                read += n;
            }
        }
        if (answer.statusCode() != 206) {
            throw new IOException("answered " + answer.statusCode());
        }
        return read;
    }

    @Override
    public void close() {
        presigner.close();
        client.close();
    }
}
