package dev.safetensors.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code verify} against a digest and a size, {@code manifest}, and {@code verify --manifest}. */
class VerifyManifestTest {
    @TempDir
    Path dir;

    @Test
    void verifyNamesEveryCheckItPerformed() {
        Path file = Fixtures.write(dir, "m.safetensors", Fixtures.small().build());
        String sha = Fixtures.sha256(file);
        long size = file.toFile().length();

        Cli.Run ok = InProcess.run("verify", file.toString(), "--sha256", sha.toUpperCase(), "--size", "" + size).exits(0);
        assertEquals(List.of("OK          " + file + ": all checks passed; checks: prefix ok, header ok, layout ok,"
                + " size ok, sha256 ok; sha256 " + sha + " (compared with --sha256)"), ok.outLines(), ok.describe());
        Cli.Run noSize = InProcess.run("verify", "--json", file.toString(), "--sha256", sha).exits(0);
        JsonNode r = noSize.json().get(0);
        assertEquals("{\"prefix\":\"pass\",\"header\":\"pass\",\"layout\":\"pass\",\"sha256\":\"pass\"}",
                r.get("checks").toString(), noSize.describe());
        assertEquals(sha, r.get("sha256").asString());
        assertEquals("--sha256", r.get("sha256_compared_with").asString());
        assertEquals(2, r.get("requests").asInt(), "one header read and one streamed read");

        String other = "0".repeat(64);
        Cli.Run bad = InProcess.run("verify", file.toString(), "--sha256", other, "--size", "" + (size + 1)).exits(1);
        String line = bad.outLines().get(0);
        assertTrue(line.startsWith("INVALID     " + file + ": the object has "), bad.describe());
        assertTrue(line.contains("[SIZE_MISMATCH]; checks: prefix ok, header ok, layout ok, size FAILED, sha256"
                + " FAILED"), bad.describe());
    }

    @Test
    void aTruncatedDownloadFailsLayoutSizeAndDigest() throws IOException {
        byte[] whole = Fixtures.small().build();
        Path cut = Fixtures.write(dir, "cut.safetensors", Arrays.copyOf(whole, whole.length - 4));
        Cli.Run run = InProcess.run("verify", "--json", cut.toString(), "--sha256", Fixtures.sha256(whole), "--size",
                "" + whole.length).exits(1);
        JsonNode r = run.json().get(0);
        assertEquals("OUT_OF_FILE", r.get("code").asString(), run.describe());
        assertEquals("{\"prefix\":\"pass\",\"header\":\"pass\",\"layout\":\"fail\",\"size\":\"fail\",\"sha256\":"
                + "\"fail\"}", r.get("checks").toString(), run.describe());
        assertEquals(Fixtures.sha256(Files.readAllBytes(cut)), r.get("sha256").asString());
    }

    @Test
    void manifestThenVerifyManifestRoundTrips() throws IOException {
        Path single = Fixtures.write(dir, "single.safetensors", Fixtures.small().build());
        Path index = Fixtures.twoShards(dir.resolve("sharded"));
        Path empty = Fixtures.write(dir, "empty.safetensors", new byte[0]);

        Cli.Run made = InProcess.run("manifest", single.toString(), index.toString(), empty.toString()).exits(1);
        assertEquals(List.of("INVALID     " + empty + ": the file has 0 bytes, fewer than the 8-byte header length;"
                + " an empty or truncated file: download it again [HEADER_TOO_SMALL]"), made.errLines(),
                made.describe());
        JsonNode manifest = JsonMapper.builder().build().readTree(made.out());
        assertEquals(1, manifest.get("manifest_version").asInt());
        JsonNode files = manifest.get("files");
        assertEquals(4, files.size(), made.describe());
        assertEquals(single.toString(), files.get(0).get("source").asString());
        assertEquals(single.toFile().length(), files.get(0).get("size").asLong());
        assertEquals(Fixtures.sha256(single), files.get(0).get("sha256").asString());
        assertTrue(files.get(1).get("source").asString().endsWith("model-00001-of-00002.safetensors"));
        assertFalse(files.get(0).has("reported_sha256"));

        Path manifestFile = Fixtures.write(dir, "manifest.json", made.stdout());
        Cli.Run verified = InProcess.run("verify", "--manifest", manifestFile.toString()).exits(0);
        assertEquals(4, verified.outLines().size(), verified.describe());
        assertTrue(verified.outLines().stream().allMatch(l -> l.startsWith("OK ") && l.contains("sha256 ok")),
                verified.describe());

        byte[] tampered = Files.readAllBytes(single);
        tampered[tampered.length - 1] ^= 1;
        Files.write(single, tampered);
        Cli.Run changed = InProcess.run("verify", "--json", "--manifest", manifestFile.toString()).exits(1);
        JsonNode first = changed.json().get(0);
        assertEquals("SHA256_MISMATCH", first.get("code").asString(), changed.describe());
        assertTrue(first.get("message").asString().contains("the manifest says " + files.get(0).get("sha256")
                .asString()), changed.describe());
        assertEquals("valid", changed.json().get(1).get("status").asString());
    }

    @Test
    void aBrokenOrMissingManifestIsAClearError() {
        Path malformed = Fixtures.write(dir, "bad.json", "{\"manifest_version\": 1, \"files\": [{\"source\": \"x\"}]}");
        Cli.Run bad = InProcess.run("verify", "--manifest", malformed.toString()).exits(2);
        assertEquals(List.of("safetensors: " + malformed + ": not a valid manifest: every file needs a source and a"
                + " size (line 1)"), bad.errLines(), bad.describe());
        Cli.Run gone = InProcess.run("verify", "--manifest", dir.resolve("none.json").toString()).exits(3);
        assertEquals(List.of("safetensors: " + dir.resolve("none.json") + ": cannot read the manifest: no such file:"
                + " check the path [NOT_FOUND]"), gone.errLines(), gone.describe());
        Cli.Run folder = InProcess.run("verify", "--manifest", dir.toString()).exits(3);
        assertEquals(List.of("safetensors: " + dir + ": cannot read the manifest: is a directory, not a manifest"
                + " [NOT_A_FILE]"), folder.errLines(), folder.describe());
    }
}
