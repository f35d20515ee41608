package dev.safetensors.gcs;

import com.google.cloud.NoCredentials;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.fixtures.ConnectionCountingProxy;
import dev.safetensors.testing.TensorReadPattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Reading every tensor of a 100-tensor object over GCS's media GETs reuses one connection. */
class GcsConnectionReuseTest {
    private static final int TENSORS = 100;
    private static final int TENSOR_BYTES = 64 * 1024;
    private static GcsTestServer server;

    @BeforeAll
    static void start() {
        server = new GcsTestServer();
        server.wireMock.stubFor(any(anyUrl()).willReturn(aResponse().withTransformers(FakeGcsObjects.NAME)));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void everyTensorOfAHundredIsReadOverOneConnection() throws Exception {
        byte[] content = TensorReadPattern.object(TENSORS, TENSOR_BYTES);
        FakeGcsObjects.put("reuse", "model.safetensors", content, 7);
        try (ConnectionCountingProxy proxy = new ConnectionCountingProxy(server.wireMock.port())) {
            Storage storage = StorageOptions.http().setHost("http://127.0.0.1:" + proxy.port()).setProjectId("test")
                    .setCredentials(NoCredentials.getInstance()).build().getService();
            try (RandomAccessSource source = GcsSource.open(storage, BlobId.of("reuse", "model.safetensors"))) {
                TensorReadPattern.readEveryTensor(source, content, TENSORS, TENSOR_BYTES);
                assertEquals(TENSORS + 1, source.statistics().requests());
            }
            System.out.println("GCS connections for " + TENSORS + " tensors: " + proxy.connections());
            assertEquals(1, proxy.connections(), "the header read and 100 tensor reads share one connection");
        }
    }
}
