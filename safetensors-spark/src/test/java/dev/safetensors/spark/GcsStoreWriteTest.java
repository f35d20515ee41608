package dev.safetensors.spark;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.safetensors.gcs.FakeGcsObjects;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;

/**
 * The store write into {@code gs://BUCKET/PREFIX/}: the GCS backend's writer (one request per small file, a
 * resumable session otherwise, {@code ifGenerationMatch=0} on the entry point) and reader, against the GCS module's
 * fake Cloud Storage on loopback, which honours the generation condition as Cloud Storage does.
 */
class GcsStoreWriteTest extends AbstractStoreWriteTest {
    private static WireMockServer server;

    @BeforeAll
    static void serve() {
        // gzip off: WireMock would otherwise compress ranged bodies and the lengths would no longer match
        server = new WireMockServer(options().bindAddress("127.0.0.1").dynamicPort().gzipDisabled(true)
                .extensions(new FakeGcsObjects()));
        server.start();
        server.stubFor(any(anyUrl()).willReturn(aResponse().withTransformers(FakeGcsObjects.NAME)));
        EmulatedGcs.serve("http://127.0.0.1:" + server.port());
    }

    @AfterAll
    static void stop() {
        server.stop();
    }

    @Override
    protected String output(String name) {
        return "gs://spark-writes/" + name + "/";
    }
}
