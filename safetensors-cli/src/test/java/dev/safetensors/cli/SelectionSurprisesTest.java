package dev.safetensors.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a multi-source run selects, without surprises: a shard named again after its index is checked once; an
 * {@code --exclude} that matches a shard its index names warns that the checkpoint is checked whole; a local folder's
 * results come sorted by name; a one-level listing says how many subfolders it did not enter; {@code manifest} records
 * index files with their digest, and {@code verify --manifest} compares them.
 */
class SelectionSurprisesTest {
    @TempDir
    Path dir;

    private static List<String> sources(Cli.Run run) {
        List<String> sources = new ArrayList<>();
        for (JsonNode n : run.json()) {
            sources.add(n.get("source").asString() + "|" + n.get("kind").asString());
        }
        return sources;
    }

    @Test
    void aShardListedAfterItsIndexIsCheckedOnceUnderIt() throws Exception {
        Path index = Fixtures.twoShards(dir.resolve("ckpt"));
        Path list = Files.writeString(dir.resolve("list.txt"), index + "\n"
                + dir.resolve("ckpt/model-00001-of-00002.safetensors") + "\n"
                // spelled otherwise, the same file
                + dir.resolve("ckpt/./model-00002-of-00002.safetensors") + "\n");
        Cli.Run run = InProcess.run("validate", "--json", "--from-file", list.toString()).exits(0);
        List<String> sources = sources(run);
        assertEquals(3, sources.size(), run.describe());
        assertTrue(sources.contains(index + "|checkpoint"), run.describe());
        assertTrue(run.stderr().contains("safetensors: 2 results: 2 valid"), run.describe());
    }

    @Test
    void anExcludeMatchingAShardOfAnIndexWarnsThatTheCheckpointIsCheckedWhole() {
        Fixtures.twoShards(dir);
        Cli.Run run = InProcess.run("validate", "--json", "--exclude", "model-00002*", dir + "/").exits(0);
        assertEquals(3, run.json().size(), run.describe());
        assertTrue(run.stderr().contains("--exclude matches its shard model-00002-of-00002.safetensors, which is"
                + " checked all the same: an index is one checkpoint"), run.describe());
        Cli.Run plain = InProcess.run("validate", "--json", dir + "/").exits(0);
        assertTrue(!plain.stderr().contains("warning"), plain.describe());
    }

    @Test
    void aFoldersResultsComeSortedByName() {
        List<String> names = List.of("zeta.safetensors", "b.safetensors", "a-1.safetensors", "a.safetensors",
                "m.safetensors", "c.safetensors", "y.safetensors", "d.safetensors", "x.safetensors");
        for (String n : names) {
            Fixtures.write(dir, n, Fixtures.small().build());
        }
        Cli.Run run = InProcess.run("validate", "--json", dir + "/").exits(0);
        List<String> got = new ArrayList<>();
        for (JsonNode n : run.json()) {
            got.add(Path.of(n.get("source").asString()).getFileName().toString());
        }
        List<String> sorted = new ArrayList<>(names);
        sorted.sort(null);
        assertEquals(sorted, got, run.describe());
    }

    @Test
    void aOneLevelListingSaysHowManySubfoldersItDidNotEnter() {
        Fixtures.write(dir, "a.safetensors", Fixtures.small().build());
        Fixtures.write(dir, "sub/b.safetensors", Fixtures.small().build());
        Fixtures.write(dir, "other/c.safetensors", Fixtures.small().build());
        Cli.Run run = InProcess.run("validate", dir + "/").exits(0);
        assertTrue(run.stderr().contains("; not entered: 2 subfolders or prefixes (--recursive lists them)"),
                run.describe());
        Cli.Run recursive = InProcess.run("validate", "--recursive", dir + "/").exits(0);
        assertTrue(!recursive.stderr().contains("not entered"), recursive.describe());
    }

    @Test
    void aManifestRecordsTheIndexWithItsDigestAndVerifyComparesIt() throws Exception {
        Path index = Fixtures.twoShards(dir.resolve("ckpt"));
        Cli.Run made = InProcess.run("manifest", index.toString()).exits(0);
        JsonNode files = JsonMapper.builder().build().readTree(made.out()).get("files");
        assertEquals(3, files.size(), made.describe());
        JsonNode entry = null;
        for (JsonNode f : files) {
            if (f.get("source").asString().equals(index.toString())) {
                entry = f;
            }
        }
        assertTrue(entry != null, made.describe());
        assertEquals(Fixtures.sha256(index), entry.get("sha256").asString());
        assertEquals(Files.size(index), entry.get("size").asLong());

        Path manifest = Files.writeString(dir.resolve("m.json"), made.out());
        InProcess.run("verify", "--manifest", manifest.toString()).exits(0);
        InProcess.run("verify", "--manifest", manifest.toString(), dir.resolve("ckpt") + "/").exits(0);

        // the same weight map, written otherwise: the checkpoint still reads, but it is not the file recorded
        Files.writeString(index, Files.readString(index) + "\n");
        Cli.Run changed = InProcess.run("verify", "--json", "--manifest", manifest.toString(),
                dir.resolve("ckpt") + "/").exits(1);
        boolean mismatch = false;
        for (JsonNode n : changed.json()) {
            if (n.get("source").asString().equals(index.toString()) && n.get("kind").asString().equals("file")) {
                mismatch = n.get("code").asString().equals("SIZE_MISMATCH");
            }
        }
        assertTrue(mismatch, changed.describe());
    }
}
