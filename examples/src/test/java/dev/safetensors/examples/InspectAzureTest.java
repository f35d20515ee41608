package dev.safetensors.examples;

import dev.safetensors.azure.testing.Azurite;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link InspectAzure}, which names no Azure class, run as a user runs it: the backend is found through
 * {@code ServiceLoader} on the class path and configured by {@code AZURE_STORAGE_CONNECTION_STRING}, here Azurite's
 * on loopback. Both runs share one child JVM ({@link ExampleProcess#runAll}): the Azure SDK is the dearest to load.
 */
class InspectAzureTest {
    private static final List<String> LOCATIONS = List.of("az://models/sample.safetensors",
            "az://models/absent.safetensors");
    private static List<ExampleProcess.Result> results;

    @BeforeAll
    static void start() throws Exception {
        Azurite azurite = Azurite.shared();
        azurite.put("models", "sample.safetensors", Files.readAllBytes(Path.of("data", "sample.safetensors")));
        results = ExampleProcess.runAll(Map.of("AZURE_STORAGE_CONNECTION_STRING", azurite.connectionString()),
                LOCATIONS.stream().map(location -> new ExampleProcess.Invocation(InspectAzure.class, location))
                        .toList(), i -> { });
    }

    private static ExampleProcess.Result inspect(String location) {
        return results.get(LOCATIONS.indexOf(location));
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
