package dev.safetensors.gcs;

import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.Storage;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.testing.AbstractRandomAccessSourceContractTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.concurrent.atomic.AtomicInteger;

import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;

/** The shared source contract, against a WireMock server that behaves like Cloud Storage. */
class GcsSourceContractTest extends AbstractRandomAccessSourceContractTest {
    private static final AtomicInteger OBJECTS = new AtomicInteger();
    private static GcsTestServer server;
    private static Storage storage;

    @BeforeAll
    static void start() {
        server = new GcsTestServer();
        server.wireMock.stubFor(any(anyUrl()).willReturn(aResponse().withTransformers(FakeGcsObjects.NAME)));
        storage = server.storage(1);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Override
    protected RandomAccessSource open(byte[] content) {
        String object = "contract/object-" + OBJECTS.incrementAndGet() + ".safetensors";
        FakeGcsObjects.put("contract-bucket", object, content, 1_700_000_000_000_001L);
        return GcsSource.open(storage, BlobId.of("contract-bucket", object));
    }
}
