package dev.safetensors.cli;

import dev.safetensors.azure.testing.Azurite;
import dev.safetensors.core.SafetensorsFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;
import tools.jackson.databind.JsonNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.ByteBuffer;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code dump} and {@code reshard} from {@code az://} in this JVM against a real Azurite. The backend is configured
 * by the {@code AZURE_STORAGE_*} system properties, which are JVM-wide: the lock keeps the other Azure classes from
 * changing them meanwhile.
 */
@ResourceLock(Resources.SYSTEM_PROPERTIES)
class DumpReshardAzureTest {
    @TempDir
    static Path source;
    private static Azurite azurite;
    private static byte[] small;

    @TempDir
    Path out;

    @BeforeAll
    static void start() throws Exception {
        azurite = Azurite.shared();
        small = Fixtures.small().build();
        azurite.put("models", "single/model.safetensors", small);
        Fixtures.twoShards(source);
        try (var files = Files.list(source)) {
            for (Path f : files.toList()) {
                azurite.put("models", "sharded/" + f.getFileName(), Files.readAllBytes(f));
            }
        }
        azurite.configureSystemProperties();
    }

    @AfterAll
    static void stop() {
        Azurite.clearSystemProperties();
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }

    @Test
    void dumpWritesATensorsStoredBytesFromABlob() throws Exception {
        Path local = Fixtures.write(out, "m.safetensors", small);
        Cli.Run run = InProcess.run("dump", "az://models/single/model.safetensors", "bias").exits(0);
        try (SafetensorsFile f = SafetensorsFile.open(local)) {
            assertArrayEquals(bytes(f.readBytes("bias")), run.stdout(), run.describe());
        }
        Path file = out.resolve("weight.bin");
        InProcess.run("dump", "az://models/single/model.safetensors", "weight", "--out", file.toString()).exits(0);
        try (SafetensorsFile f = SafetensorsFile.open(local)) {
            assertArrayEquals(bytes(f.readBytes("weight")), Files.readAllBytes(file));
        }
    }

    @Test
    void reshardMergesAnIndexOfTwoBlobsIntoOneFileWithOneGetPerShardAfterTheIndex() throws Exception {
        Cli.Run run = InProcess.run("reshard", "--json", "--out", out.toString(),
                "az://models/sharded/model.safetensors.index.json", "--single").exits(0);
        JsonNode summary = run.summary();
        assertEquals("reshard", summary.get("command").asString(), run.describe());
        assertEquals("valid", summary.get("status").asString(), run.describe());
        assertEquals(3, summary.get("tensor_count").asInt(), run.describe());
        // the index's GET, then one ranged GET per shard: each small shard's tensors come with its header's read
        assertEquals(3, summary.get("requests").asLong(), run.describe());
        try (SafetensorsFile merged = SafetensorsFile.open(out.resolve("model.safetensors"))) {
            assertEquals(3, merged.header().tensors().size());
            for (String shard : List.of("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors")) {
                try (SafetensorsFile s = SafetensorsFile.open(source.resolve(shard))) {
                    for (var t : s.header().tensors()) {
                        assertEquals(s.readBytes(t.name()), merged.readBytes(t.name()), t.name());
                    }
                }
            }
        }
    }
}
