package dev.safetensors.gcs;

import com.google.cloud.storage.Storage;

import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.fixtures.AbstractProviderContractTest;
import dev.safetensors.fixtures.GcsStandIn;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The provider contract for {@code gs:}, against the test kit's Cloud Storage stand-in. The provider that builds its
 * own client reads {@code STORAGE_EMULATOR_HOST}, which a test cannot set in-process, so every provider here reads
 * through a client the test built (and that must outlive the provider).
 */
class GcsProviderContractTest extends AbstractProviderContractTest {
    private static final String BUCKET = "contract";
    private static final AtomicInteger PREFIXES = new AtomicInteger();
    private static GcsStandIn gcs;
    private static Storage storage;

    @BeforeAll
    static void start() throws Exception {
        gcs = new GcsStandIn();
        storage = GcsTestServer.storage("http://" + gcs.hostAndPort(), 1);
    }

    @AfterAll
    static void stop() throws Exception {
        storage.close();
        gcs.close();
    }

    @Override
    protected RandomAccessSourceProvider newProvider() {
        return new GcsSourceProvider(storage);
    }

    @Override
    protected List<String> supportedLocations() {
        return List.of("gs://bucket/m.safetensors", "gs://bucket/dir/m.safetensors");
    }

    @Override
    protected String malformedLocation() {
        return "gs://bucket-only";
    }

    @Override
    protected boolean givenClientOutlivesProvider() throws Exception {
        gcs.put(BUCKET, "after-close.bin", new byte[] {1, 2, 3}, 5);
        new GcsSourceProvider(storage).close();
        try (RandomAccessSource source = new GcsSourceProvider(storage)
                .open(Location.parse("gs://" + BUCKET + "/after-close.bin"))) {
            return source.size() == 3;
        }
    }

    @Override
    protected String putUnderFreshPrefix(List<String> names, byte[] content) {
        String prefix = "p" + PREFIXES.incrementAndGet() + "/";
        for (String name : names) {
            gcs.put(BUCKET, prefix + name, content, 1);
        }
        return "gs://" + BUCKET + "/" + prefix;
    }
}
