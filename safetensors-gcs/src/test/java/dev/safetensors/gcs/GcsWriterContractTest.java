package dev.safetensors.gcs;

import com.google.cloud.storage.Storage;

import dev.safetensors.Location;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.fixtures.AbstractObjectWriterContractTest;
import dev.safetensors.spi.ObjectWriterProvider;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

import java.util.concurrent.atomic.AtomicInteger;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;

/**
 * The write contract for {@code gs:}, against the in-process fake Cloud Storage server, which honours
 * {@code ifGenerationMatch=0} when an upload stores its object, as Cloud Storage does: so an object that appears
 * during an upload is refused at its commit by the store itself.
 */
class GcsWriterContractTest extends AbstractObjectWriterContractTest {
    private static final AtomicInteger PREFIXES = new AtomicInteger();
    private static GcsTestServer server;
    private static Storage storage;

    @BeforeAll
    static void start() {
        server = new GcsTestServer();
        server.wireMock.stubFor(any(anyUrl()).willReturn(aResponse().withTransformers(FakeGcsObjects.NAME)));
        storage = server.storage(1);
    }

    @AfterAll
    static void stop() throws Exception {
        storage.close();
        server.close();
    }

    @AfterEach
    void closeWriter() throws Exception {
        ((GcsObjectWriter) writer()).close();
    }

    @Override
    protected ObjectWriterProvider newWriter() {
        return new GcsObjectWriter(storage);
    }

    @Override
    protected RandomAccessSourceProvider readProvider() {
        return new GcsSourceProvider(storage);
    }

    @Override
    protected Location newPrefix() {
        return Location.parse("gs://writer-contract/run-" + PREFIXES.incrementAndGet() + "/");
    }
}
