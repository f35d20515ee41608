package dev.safetensors.s3;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.testing.ManualTime;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;
import java.util.List;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;

/**
 * A WireMock server on a loopback port that plays an S3 bucket, and a client pointed at it with path-style
 * addressing, region us-east-1 and static test keys.
 */
final class WireMockS3 implements AutoCloseable {
    static final String BUCKET = "models";
    static final String ACCESS_KEY = "test-access-key";
    static final String SECRET_KEY = "test-secret-key-never-shown";

    final WireMockServer server;
    final S3Client client;
    final ManualTime time = new ManualTime();
    private final S3ObjectsTransformer objects = new S3ObjectsTransformer();

    WireMockS3() {
        server = new WireMockServer(options().bindAddress("127.0.0.1").dynamicPort().extensions(objects));
        server.start();
        client = client(URI.create("http://127.0.0.1:" + server.port()));
        reset();
    }

    /**
     * @param endpoint a loopback server playing S3
     * @return a client for it, configured as this harness's own; the caller closes it
     */
    static S3Client client(URI endpoint) {
        return client(endpoint, ACCESS_KEY, SECRET_KEY);
    }

    /**
     * @param endpoint  a loopback server playing S3
     * @param accessKey the access key id to sign with
     * @param secretKey the secret key to sign with
     * @return a client for it, path-style in us-east-1; the caller closes it
     */
    static S3Client client(URI endpoint, String accessKey, String secretKey) {
        return new S3ClientOptions(endpoint, true).clientBuilder()
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(accessKey, secretKey)))
                .build();
    }

    /** Forgets every object, stub and logged request, and serves the bucket again. */
    void reset() {
        server.resetAll();
        objects.clear();
        server.stubFor(any(urlPathMatching("/" + BUCKET + "/.*")).atPriority(10)
                .willReturn(aResponse().withTransformers(S3ObjectsTransformer.NAME)));
    }

    void put(String key, StoredObject object) {
        objects.put(BUCKET, key, object);
    }

    S3Source open(String key) {
        return S3Source.open(client, new S3Location(BUCKET, key, null), RemotePolicy.builder().time(time).build());
    }

    /** @return the requests the server received, oldest first */
    List<LoggedRequest> requests() {
        return server.findAll(anyRequestedFor(urlPathMatching(".*")));
    }

    @Override
    public void close() {
        client.close();
        server.stop();
    }
}
