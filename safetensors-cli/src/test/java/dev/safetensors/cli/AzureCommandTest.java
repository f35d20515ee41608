package dev.safetensors.cli;

import dev.safetensors.azure.AzureClientOptions;
import dev.safetensors.azure.testing.Azurite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code az://} and {@code abfss://} sources through the command, in process, against a real Azurite on loopback:
 * the Azure backend is found through {@code ServiceLoader}, configured by the {@code AZURE_STORAGE_*} settings (here
 * as system properties of the same names, which the backend reads over the environment), and a small file's
 * {@code validate} costs one ranged GET.
 */
@org.junit.jupiter.api.parallel.ResourceLock(org.junit.jupiter.api.parallel.Resources.SYSTEM_PROPERTIES)
class AzureCommandTest {
    private static Azurite azurite;
    private static byte[] small;

    @BeforeAll
    static void start() throws Exception {
        azurite = Azurite.shared();
        small = Fixtures.small().build();
        azurite.put("models", "tiny.safetensors", small);
        azurite.configureSystemProperties();
    }

    @AfterAll
    static void stop() {
        Azurite.clearSystemProperties();
    }

    @Test
    void validateJsonOfASmallBlobIsValidWithOneRequest() {
        Cli.Run run = InProcess.run("validate", "--json", "az://models/tiny.safetensors").exits(0);
        assertEquals("", run.stderr(), run.describe());
        List<JsonNode> lines = run.json();
        assertEquals(1, lines.size(), run.describe());
        JsonNode r = lines.get(0);
        assertEquals("az://models/tiny.safetensors", r.get("source").asString());
        assertEquals("valid", r.get("status").asString(), run.describe());
        assertEquals(small.length, r.get("size").asLong());
        assertEquals(1, r.get("requests").asInt(), "one ranged GET: " + run.describe());
        assertEquals(small.length, r.get("bytes_read").asLong());
        assertTrue(r.get("attributes").has("etag"), run.describe());
    }

    @Test
    void inspectOfAnAbfssLocationListsTheTensors() {
        Cli.Run run = InProcess.run("inspect", "--json", "--tensors",
                "abfss://models@" + Azurite.ACCOUNT + ".dfs.core.windows.net/tiny.safetensors").exits(0);
        JsonNode r = run.json().get(0);
        assertEquals("valid", r.get("status").asString(), run.describe());
        assertEquals(3, r.get("tensor_count").asInt());
        assertEquals("weight", r.get("tensors").get(0).get("name").asString());
        assertEquals(1, r.get("requests").asInt(), run.describe());
    }

    @Test
    void aMissingBlobIsNotFoundAndTheKeyIsNeverPrinted() {
        Cli.Run run = InProcess.run("validate", "--json", "az://models/absent.safetensors");
        JsonNode r = run.json().get(0);
        assertEquals("error", r.get("status").asString(), run.describe());
        assertEquals("NOT_FOUND", r.get("code").asString(), run.describe());
        assertFalse(run.out().contains(Azurite.KEY) || run.stderr().contains(Azurite.KEY), run.describe());
    }

    @Test
    void debugOutputNeverShowsTheSasSignature() {
        String signature = "SAS-SIGNATURE-NEVER-SHOWN";
        System.clearProperty(AzureClientOptions.KEY);
        System.setProperty(AzureClientOptions.SAS_TOKEN, "sv=2021-08-06&sp=r&sig=" + signature);
        try {
            Cli.Run run = InProcess.run("validate", "--debug", "az://models/tiny.safetensors");
            assertTrue(run.stderr().contains("GET az://models/tiny.safetensors bytes=0-131071"), run.describe());
            assertTrue(run.stderr().contains("[ACCESS_DENIED]"), run.describe());
            assertFalse(run.stderr().contains(signature) || run.out().contains(signature), run.describe());
        } finally {
            System.clearProperty(AzureClientOptions.SAS_TOKEN);
            System.setProperty(AzureClientOptions.KEY, Azurite.KEY);
        }
    }
}
