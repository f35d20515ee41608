package dev.safetensors.cli;

import dev.safetensors.ErrorCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code verify --manifest FILE LOCATION...} over a local folder: every file the listed locations hold is matched
 * with the manifest's entry and verified against it, a file the manifest does not name is invalid
 * ({@code NOT_IN_MANIFEST}), and an entry no listed file matches is an error ({@code NOT_FOUND}).
 */
class VerifyFolderTest {
    @TempDir
    Path dir;

    /** A folder with two files, a sharded checkpoint and a text file, and its manifest beside it. */
    private Path folderAndManifest() throws IOException {
        Path root = Files.createDirectories(dir.resolve("models"));
        Fixtures.write(root, "a.safetensors", Fixtures.small().build());
        Fixtures.write(root, "b.safetensors", Fixtures.small().metadata("name", "b").build());
        Fixtures.write(root, "notes.txt", "not selected");
        Fixtures.twoShards(root.resolve("sharded"));
        Cli.Run made = InProcess.run("manifest", "--recursive", root.toString()).exits(0);
        return Files.write(dir.resolve("manifest.json"), made.stdout());
    }

    private Path root() {
        return dir.resolve("models");
    }

    private static Map<String, JsonNode> bySource(Cli.Run run, Path root) {
        Map<String, JsonNode> m = new TreeMap<>();
        for (JsonNode n : run.json()) {
            m.put(root.relativize(Path.of(n.get("source").asString())) + "|" + n.get("kind").asString(), n);
        }
        return m;
    }

    @Test
    void everyFileMatchesItsEntry() throws IOException {
        Path manifest = folderAndManifest();
        // spelled differently from the manifest's locations: matched by the absolute normalized path
        Cli.Run run = InProcess.run("verify", "--json", "--manifest", manifest.toString(), "--recursive",
                root() + "/./").exits(0);
        Map<String, JsonNode> lines = bySource(run, root());
        assertEquals(List.of("a.safetensors|file", "b.safetensors|file",
                "sharded/model-00001-of-00002.safetensors|shard", "sharded/model-00002-of-00002.safetensors|shard",
                "sharded/model.safetensors.index.json|checkpoint", "sharded/model.safetensors.index.json|file"),
                List.copyOf(lines.keySet()), run.describe());
        JsonNode a = lines.get("a.safetensors|file");
        assertEquals("valid", a.get("status").asString());
        assertEquals("pass", a.get("checks").get("sha256").asString(), a.toString());
        assertEquals("pass", a.get("checks").get("size").asString(), a.toString());
        assertEquals("pass", lines.get("sharded/model.safetensors.index.json|file").get("checks").get("sha256")
                .asString(), run.describe());
        assertEquals(List.of("safetensors: 5 results: 5 valid; listing: 0 requests"), run.errLines());
    }

    @Test
    void aFileTheManifestDoesNotNameIsInvalid() throws IOException {
        Path manifest = folderAndManifest();
        Fixtures.write(root(), "extra.safetensors", Fixtures.small().build());
        Cli.Run run = InProcess.run("verify", "--json", "--manifest", manifest.toString(), root().toString())
                .exits(1);
        Map<String, JsonNode> lines = bySource(run, root());
        assertEquals(List.of("a.safetensors|file", "b.safetensors|file", "extra.safetensors|file"),
                List.copyOf(lines.keySet()), run.describe());
        JsonNode extra = lines.get("extra.safetensors|file");
        assertEquals("invalid", extra.get("status").asString(), extra.toString());
        assertEquals(ErrorCode.NOT_IN_MANIFEST.name(), extra.get("code").asString(), extra.toString());
        assertEquals("fail", extra.get("checks").get("manifest").asString(), extra.toString());
        assertEquals("valid", lines.get("a.safetensors|file").get("status").asString());

        Cli.Run text = InProcess.run("verify", "--manifest", manifest.toString(), root().toString()).exits(1);
        String line = text.outLines().stream().filter(l -> l.contains("extra.safetensors")).findFirst().orElseThrow();
        assertTrue(line.startsWith("INVALID") && line.contains("[NOT_IN_MANIFEST]")
                && line.contains("checks: manifest FAILED"), text.describe());
        assertEquals(List.of("safetensors: 3 results: 2 valid, 1 invalid; listing: 0 requests; not entered: 1"
                + " subfolder or prefix (--recursive lists them)"), text.errLines());
    }

    @Test
    void anEntryNoListedFileMatchesIsMissing() throws IOException {
        Path manifest = folderAndManifest();
        Files.delete(root().resolve("b.safetensors"));
        Cli.Run run = InProcess.run("verify", "--json", "--manifest", manifest.toString(), "--recursive",
                root().toString()).exits(3);
        Map<String, JsonNode> lines = bySource(run, root());
        JsonNode b = lines.get("b.safetensors|file");
        assertEquals("error", b.get("status").asString(), run.describe());
        assertEquals("NOT_FOUND", b.get("code").asString(), b.toString());
        assertEquals("fail", b.get("checks").get("manifest").asString(), b.toString());
        assertEquals(6, lines.size(), run.describe());
        // the missing entry closes the stream, after every listed file
        assertTrue(run.json().get(run.json().size() - 1).get("source").asString().endsWith("b.safetensors"));
        assertEquals(List.of("safetensors: 5 results: 4 valid, 1 error; listing: 0 requests"), run.errLines());
    }

    @Test
    void aChangedFileFailsItsDigest() throws IOException {
        Path manifest = folderAndManifest();
        Path a = root().resolve("a.safetensors");
        byte[] bytes = Files.readAllBytes(a);
        bytes[bytes.length - 1] ^= 1; // a payload byte: the header stays valid, the size the same
        Files.write(a, bytes);
        Cli.Run run = InProcess.run("verify", "--json", "--manifest", manifest.toString(), root() + "/").exits(1);
        JsonNode line = bySource(run, root()).get("a.safetensors|file");
        assertEquals("invalid", line.get("status").asString(), run.describe());
        assertEquals("SHA256_MISMATCH", line.get("code").asString(), line.toString());
        assertEquals("fail", line.get("checks").get("sha256").asString(), line.toString());
        assertEquals("pass", line.get("checks").get("size").asString(), line.toString());
        assertEquals("valid", bySource(run, root()).get("b.safetensors|file").get("status").asString());
    }

    @Test
    void includeAndExcludeNarrowTheFilesAndTheEntriesExpected() throws IOException {
        Path manifest = folderAndManifest();
        Files.delete(root().resolve("b.safetensors")); // expected only when the selection takes it
        Cli.Run run = InProcess.run("verify", "--json", "--manifest", manifest.toString(), "--recursive",
                "--include", "a.*", root().toString()).exits(0);
        assertEquals(List.of("a.safetensors|file"), List.copyOf(bySource(run, root()).keySet()), run.describe());
        Cli.Run excluded = InProcess.run("verify", "--json", "--manifest", manifest.toString(), "--recursive",
                "--exclude", "b.*", "--exclude", "model*", root().toString()).exits(0);
        assertEquals(List.of("a.safetensors|file"), List.copyOf(bySource(excluded, root()).keySet()),
                excluded.describe());
    }

    @Test
    void listedFilesAndListsOfSourcesAreMatchedToo() throws IOException {
        Path manifest = folderAndManifest();
        Path list = Files.writeString(dir.resolve("list.txt"), root().resolve("b.safetensors") + "\n"
                + root().resolve("notes.txt") + "\n");
        Cli.Run run = InProcess.run("verify", "--json", "--manifest", manifest.toString(), "--from-file",
                list.toString(), root().resolve("a.safetensors").toString()).exits(1);
        Map<String, JsonNode> lines = bySource(run, root());
        assertEquals(List.of("a.safetensors|file", "b.safetensors|file", "notes.txt|file"),
                List.copyOf(lines.keySet()), run.describe());
        assertEquals(ErrorCode.NOT_IN_MANIFEST.name(), lines.get("notes.txt|file").get("code").asString());
        // files named one by one leave the manifest's other entries alone: no folder was listed
        assertEquals(List.of("safetensors: 3 results: 2 valid, 1 invalid; listing: 0 requests"), run.errLines());
    }

    @Test
    void theSelectionOptionsNeedAManifest() {
        Path file = Fixtures.write(dir, "a.safetensors", Fixtures.small().build());
        String sha = Fixtures.sha256(file);
        assertTrue(InProcess.run("verify", "--recursive", "--sha256", sha, dir.toString()).exits(2).stderr()
                .contains("--manifest"));
        InProcess.run("verify", "--sha256", sha, file.toString(), file.toString()).exits(2);
        InProcess.run("verify", "--sha256", sha, file.toString()).exits(0);
    }
}
