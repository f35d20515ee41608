package dev.safetensors.azure;

import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.azure.testing.Azurite;
import dev.safetensors.testing.AbstractRandomAccessSourceContractTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.concurrent.atomic.AtomicInteger;

/** The shared source contract, against a real Azurite on loopback, through az:// locations and a connection string. */
class AzuriteContractTest extends AbstractRandomAccessSourceContractTest {
    private static final AtomicInteger BLOBS = new AtomicInteger();
    private static Azurite azurite;
    private static AzureSourceProvider provider;

    @BeforeAll
    static void start() throws Exception {
        azurite = Azurite.shared();
        provider = new AzureSourceProvider(AzureClientOptions.builder()
                .connectionString(azurite.connectionString()).build());
    }

    @AfterAll
    static void stop() {
        if (provider != null) {
            provider.close();
        }
    }

    @Override
    protected RandomAccessSource open(byte[] content) throws Exception {
        String blob = "contract/blob-" + BLOBS.incrementAndGet() + ".safetensors";
        azurite.put("contract", blob, content);
        return provider.open(Location.parse("az://contract/" + blob));
    }
}
