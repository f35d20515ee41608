package dev.safetensors.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;
import tools.jackson.databind.JsonNode;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Local folders, lists of sources and the selection options of validate, inspect and manifest. */
class FolderValidateTest {
    @TempDir
    Path dir;

    private Path tree() {
        Fixtures.write(dir, "a.safetensors", Fixtures.small().build());
        Fixtures.write(dir, "broken.safetensors", "nope");
        Fixtures.write(dir, "notes.txt", "skipped");
        Fixtures.twoShards(dir.resolve("sharded"));
        Fixtures.write(dir, "deep/er/c.safetensors", Fixtures.small().build());
        return dir;
    }

    private static Map<String, String> statuses(Cli.Run run, Path root) {
        Map<String, String> m = new TreeMap<>();
        for (JsonNode n : run.json()) {
            m.put(root.relativize(Path.of(n.get("source").asString())) + "|" + n.get("kind").asString(),
                    n.get("status").asString());
        }
        return m;
    }

    @Test
    void aFolderIsListedOneLevelOrRecursivelyEachShardOnce() {
        Path root = tree();
        Cli.Run oneLevel = InProcess.run("validate", "--json", root + "/").exits(1);
        assertEquals(Map.of("a.safetensors|file", "valid", "broken.safetensors|file", "invalid"),
                statuses(oneLevel, root));
        Cli.Run all = InProcess.run("validate", "--json", "--recursive", root.toString()).exits(1);
        assertEquals(Map.of("a.safetensors|file", "valid", "broken.safetensors|file", "invalid",
                "deep/er/c.safetensors|file", "valid", "sharded/model-00001-of-00002.safetensors|shard", "valid",
                "sharded/model-00002-of-00002.safetensors|shard", "valid",
                "sharded/model.safetensors.index.json|checkpoint", "valid"), statuses(all, root), all.describe());
        assertEquals(List.of("safetensors: 5 results: 4 valid, 1 invalid; listing: 0 requests"), all.errLines());
    }

    @Test
    void aFolderOrListThatSelectsNothingIsNotFoundUnlessAllowed() throws Exception {
        Path empty = Files.createDirectory(dir.resolve("empty"));
        Fixtures.write(empty, "notes.txt", "no weights here");
        for (String command : List.of("validate", "inspect")) {
            Cli.Run run = InProcess.run(command, "--json", empty + "/").exits(3);
            JsonNode only = run.json().get(0);
            assertEquals(1, run.json().size(), run.describe());
            assertEquals("error", only.get("status").asString(), run.describe());
            assertEquals("NOT_FOUND", only.get("code").asString(), run.describe());
            assertTrue(only.get("message").asString().contains("--recursive"), run.describe());
            InProcess.run(command, "--json", "--allow-empty", empty + "/").exits(0);
        }
        Cli.Run manifest = InProcess.run("manifest", empty + "/").exits(3);
        assertTrue(manifest.stderr().contains("[NOT_FOUND]"), manifest.describe());
        InProcess.run("manifest", "--allow-empty", empty + "/").exits(0);
        Cli.Run text = InProcess.run("validate", "--recursive", empty.toString()).exits(3);
        assertTrue(text.errLines().stream().anyMatch(l -> l.startsWith("ERROR") && l.endsWith("[NOT_FOUND]")),
                text.describe());
        Path blankList = Fixtures.write(dir, "list.txt", "\n\n");
        InProcess.run("validate", "--from-file", blankList.toString()).exits(3);
    }

    @Test
    void includeAndExcludeSelectFileNames() {
        Path root = tree();
        Cli.Run run = InProcess.run("validate", "--json", "--recursive", "--include", "*.safetensors",
                "--exclude", "broken*", "--exclude", "model-*", root.toString()).exits(0);
        assertEquals(Map.of("a.safetensors|file", "valid", "deep/er/c.safetensors|file", "valid"),
                statuses(run, root));
    }

    @Test
    void aMalformedGlobIsAUsageError() {
        Cli.Run run = InProcess.run("validate", "--include", "[", dir.toString()).exits(2);
        assertTrue(run.stderr().contains("--include"), run.describe());
    }

    @Test
    void sourcesComeFromAFileOneALine() throws Exception {
        Path root = tree();
        Path list = Files.writeString(dir.resolve("list.txt"), root.resolve("a.safetensors") + "\n\n"
                + root.resolve("broken.safetensors") + "\n");
        Cli.Run run = InProcess.run("validate", "--json", "--from-file", list.toString()).exits(1);
        assertEquals(Map.of("a.safetensors|file", "valid", "broken.safetensors|file", "invalid"),
                statuses(run, root));
        InProcess.run("validate", "--from-file", dir.resolve("missing.txt").toString()).exits(2);
        InProcess.run("validate").exits(2);
    }

    @Test
    @ResourceLock("java.lang.System.in")
    void aDashReadsStandardInput() {
        Path root = tree();
        InputStream saved = System.in;
        System.setIn(new ByteArrayInputStream((root.resolve("a.safetensors") + "\n" + root + "/sharded/\n")
                .getBytes(StandardCharsets.UTF_8)));
        try {
            Cli.Run run = InProcess.run("validate", "--json", "-").exits(0);
            assertEquals(Map.of("a.safetensors|file", "valid",
                    "sharded/model-00001-of-00002.safetensors|shard", "valid",
                    "sharded/model-00002-of-00002.safetensors|shard", "valid",
                    "sharded/model.safetensors.index.json|checkpoint", "valid"), statuses(run, root), run.describe());
        } finally {
            System.setIn(saved);
        }
    }

    @Test
    void manifestAndInspectTakeFoldersToo() {
        Path root = tree();
        Cli.Run manifest = InProcess.run("manifest", "--exclude", "broken*", root + "/").exits(0);
        assertTrue(manifest.out().contains("a.safetensors"), manifest.describe());
        Cli.Run inspect = InProcess.run("inspect", "--json", "--exclude", "broken*", root + "/").exits(0);
        assertEquals(1, inspect.json().size(), inspect.describe());
    }
}
