package dev.safetensors.cli;

import dev.safetensors.azure.testing.Azurite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;
import tools.jackson.databind.JsonNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code validate --json az://CONTAINER/PREFIX/} in this JVM against a real Azurite: one line per blob with its
 * verdict, each shard once under its index, one ranged GET per file whose header fits the first read, and the List
 * Blobs pages in the summary. The backend is configured by the {@code AZURE_STORAGE_*} system properties, which are
 * JVM-wide: the lock keeps the other Azure classes from changing them meanwhile.
 */
@ResourceLock(Resources.SYSTEM_PROPERTIES)
class PrefixValidateAzureTest {
    @TempDir
    static Path shards;
    private static Azurite azurite;

    @BeforeAll
    static void start() throws Exception {
        azurite = Azurite.shared();
        byte[] small = Fixtures.small().build();
        azurite.put("models", "run/a.safetensors", small);
        azurite.put("models", "run/nested/b.safetensors", small);
        azurite.put("models", "run/nested/deeper/c.safetensors", small);
        azurite.put("models", "run/broken.safetensors", "not a safetensors file at all".getBytes());
        azurite.put("models", "run/notes.txt", "skipped: not *.safetensors".getBytes());
        Fixtures.twoShards(shards);
        try (var files = Files.list(shards)) {
            for (Path f : files.toList()) {
                azurite.put("models", "run/sharded/" + f.getFileName(), Files.readAllBytes(f));
            }
        }
        azurite.put("models", "elsewhere/x.safetensors", small);
        azurite.configureSystemProperties();
    }

    @AfterAll
    static void stop() {
        Azurite.clearSystemProperties();
    }

    private static Map<String, JsonNode> bySource(Cli.Run run) {
        Map<String, JsonNode> lines = new TreeMap<>();
        for (JsonNode n : run.json()) {
            lines.put(n.get("source").asString() + "|" + n.get("kind").asString(), n);
        }
        return lines;
    }

    @Test
    void recursivePrefixGivesOneLinePerBlobAndCountsItsRequests() {
        Cli.Run run = InProcess.run("validate", "--json", "--recursive", "az://models/run/").exits(1);
        Map<String, JsonNode> lines = bySource(run);
        assertEquals(Set.of("az://models/run/a.safetensors|file", "az://models/run/broken.safetensors|file",
                "az://models/run/nested/b.safetensors|file", "az://models/run/nested/deeper/c.safetensors|file",
                "az://models/run/sharded/model-00001-of-00002.safetensors|shard",
                "az://models/run/sharded/model-00002-of-00002.safetensors|shard",
                "az://models/run/sharded/model.safetensors.index.json|checkpoint"), lines.keySet(), run.describe());
        assertEquals("invalid", lines.get("az://models/run/broken.safetensors|file").get("status").asString());
        long files = 0;
        long requests = 0;
        for (JsonNode n : lines.values()) {
            if (!n.get("source").asString().contains("broken") && !n.get("kind").asString().equals("checkpoint")) {
                assertEquals("valid", n.get("status").asString(), n.toString());
            }
            if (!n.get("kind").asString().equals("checkpoint")) {
                files++;
                requests += n.get("requests").asLong();
            }
        }
        // one ranged GET per file (every header here fits the first read); the index, then its two shards
        assertEquals(files, requests, run.describe());
        assertEquals(1, lines.get("az://models/run/sharded/model.safetensors.index.json|checkpoint").get("requests")
                .asLong(), "the index: its two shards' reads are on their own lines, never counted again");
        JsonNode summary = run.summary();
        assertEquals(1, summary.get("requests").asLong(), "the listing's one page: " + run.describe());
        assertEquals(5, summary.get("counts").get("valid").asLong(), run.describe());
        assertEquals(1, summary.get("counts").get("invalid").asLong(), run.describe());
        // 9 blobs under run/, one page of List Blobs
        assertTrue(run.stderr().contains("safetensors: 6 results: 5 valid, 1 invalid; listing: 1 request"),
                run.describe());
    }

    @Test
    void oneLevelPrefixSkipsTheFoldersBelow() {
        Cli.Run run = InProcess.run("validate", "--json", "az://models/run/").exits(1);
        assertEquals(Set.of("az://models/run/a.safetensors|file", "az://models/run/broken.safetensors|file"),
                bySource(run).keySet(), run.describe());
    }

    @Test
    void anAbfssPrefixListsTheSameBlobs() {
        String base = "abfss://models@" + Azurite.ACCOUNT + ".dfs.core.windows.net";
        Cli.Run run = InProcess.run("validate", "--json", "--exclude", "broken*", base + "/run/").exits(0);
        assertEquals(Set.of(base + "/run/a.safetensors|file"), bySource(run).keySet(), run.describe());
    }

    @Test
    void aMissingContainerIsOneErrorLine() {
        Cli.Run run = InProcess.run("validate", "--json", "az://absent/run/").exits(3);
        JsonNode line = run.json().get(0);
        assertEquals("error", line.get("status").asString(), run.describe());
        assertEquals("NOT_FOUND", line.get("code").asString(), run.describe());
    }
}
