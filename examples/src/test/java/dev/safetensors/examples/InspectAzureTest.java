package dev.safetensors.examples;

import dev.safetensors.azure.testing.Azurite;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link InspectAzure}, which names no Azure class, run as a user runs it: the backend is found through
 * {@code ServiceLoader} on the class path and configured by {@code AZURE_STORAGE_CONNECTION_STRING}, here Azurite's
 * on loopback.
 */
class InspectAzureTest {
    private static Azurite azurite;

    @BeforeAll
    static void start() throws Exception {
        azurite = Azurite.shared();
        azurite.put("models", "sample.safetensors", Files.readAllBytes(Path.of("data", "sample.safetensors")));
    }

    private static ExampleProcess.Result inspect(String location) throws Exception {
        return ExampleProcess.run(InspectAzure.class,
                Map.of("AZURE_STORAGE_CONNECTION_STRING", azurite.connectionString()), location);
    }

    @Test
    void aHeaderThatFitsThePrefixCostsOneRangedGet() throws Exception {
        ExampleProcess.Result r = inspect("az://models/sample.safetensors");
        assertEquals(0, r.exitCode(), r.stderr());
        assertTrue(r.stdout().startsWith("az://models/sample.safetensors: 4 tensors, header 368 bytes"), r.stdout());
        assertTrue(r.stdout().contains("cost: 1 request, 482 bytes"), r.stdout());
        assertTrue(r.stdout().contains("pinned: {etag="), r.stdout());
    }

    @Test
    void aMissingBlobIsNamedInTheError() throws Exception {
        ExampleProcess.Result r = inspect("az://models/absent.safetensors");
        assertEquals(1, r.exitCode(), r.stdout());
        assertTrue(r.stderr().contains("az://models/absent.safetensors") && r.stderr().contains("BlobNotFound"),
                r.stderr());
    }
}
