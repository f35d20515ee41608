package dev.safetensors.cli;

import dev.safetensors.ErrorCode;
import dev.safetensors.fixtures.LoopbackS3;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code validate --json s3://BUCKET/PREFIX/} in this JVM against s3proxy (the module's shared {@link LoopbackS3},
 * in a bucket of this class's own, {@value #BUCKET}): one line per object with its verdict, each shard once under
 * its index, one request per file whose header fits the first read, and the listing's pages in the summary; and
 * {@code verify --manifest} of the same prefix, matched one to one with its manifest.
 */
class PrefixValidateS3Test {
    // every run is handed the module's one set of AWS settings (InProcess.S3_ENV): the SDK reads them from
    // JVM-wide system properties, which InProcess sets and no class clears, so classes running at once agree
    private static final Map<String, String> ENV = InProcess.S3_ENV;
    private static final String BUCKET = "prefixes";

    @TempDir
    static Path bucket;
    private static String endpoint;

    @BeforeAll
    static void start() throws Exception {
        Fixtures.write(bucket, "run/a.safetensors", Fixtures.small().build());
        Fixtures.write(bucket, "run/nested/b.safetensors", Fixtures.small().build());
        Fixtures.write(bucket, "run/nested/deeper/c.safetensors", Fixtures.small().build());
        Fixtures.write(bucket, "run/broken.safetensors", "not a safetensors file at all");
        Fixtures.write(bucket, "run/notes.txt", "skipped: not *.safetensors");
        Fixtures.twoShards(bucket.resolve("run/sharded"));
        Fixtures.write(bucket, "elsewhere/x.safetensors", Fixtures.small().build());
        LoopbackS3 s3 = LoopbackS3.shared();
        s3.putFiles(BUCKET, bucket);
        endpoint = s3.endpoint().toString();
    }

    private static Map<String, JsonNode> bySource(Cli.Run run) {
        Map<String, JsonNode> lines = new TreeMap<>();
        for (JsonNode n : run.json()) {
            lines.put(n.get("source").asString() + "|" + n.get("kind").asString(), n);
        }
        return lines;
    }

    @Test
    void aPrefixThatSelectsNothingExitsThreeNamingItUnlessEmptyIsAllowed() {
        // a typo of run/: the CI gate this guards must not go green on nothing
        Cli.Run typo = InProcess.run(ENV, "validate", "--json", "--recursive", "--s3-endpoint", endpoint,
                "--s3-path-style", "s3://prefixes/rnu/").exits(3);
        assertEquals("NOT_FOUND", typo.json().get(0).get("code").asString(), typo.describe());
        assertEquals("s3://prefixes/rnu/", typo.json().get(0).get("source").asString(), typo.describe());
        assertEquals(3, typo.summary().get("exit_code").asInt(), typo.describe());
        Cli.Run allowed = InProcess.run(ENV, "validate", "--json", "--recursive", "--allow-empty", "--s3-endpoint",
                endpoint, "--s3-path-style", "s3://prefixes/rnu/").exits(0);
        assertEquals(0, allowed.summary().get("results").asInt(), allowed.describe());
    }

    @Test
    void recursivePrefixGivesOneLinePerObjectAndCountsItsRequests() {
        Cli.Run run = InProcess.run(ENV, "validate", "--json", "--recursive", "--s3-endpoint", endpoint,
                "--s3-path-style", "s3://prefixes/run/").exits(1);
        Map<String, JsonNode> lines = bySource(run);
        assertEquals(java.util.Set.of("s3://prefixes/run/a.safetensors|file",
                "s3://prefixes/run/broken.safetensors|file", "s3://prefixes/run/nested/b.safetensors|file",
                "s3://prefixes/run/nested/deeper/c.safetensors|file",
                "s3://prefixes/run/sharded/model-00001-of-00002.safetensors|shard",
                "s3://prefixes/run/sharded/model-00002-of-00002.safetensors|shard",
                "s3://prefixes/run/sharded/model.safetensors.index.json|checkpoint"), lines.keySet(), run.describe());
        assertEquals("invalid", lines.get("s3://prefixes/run/broken.safetensors|file").get("status").asString());
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
        // one ranged request per file (every header here fits the first read), one for the index
        assertEquals(files, requests, run.describe());
        assertEquals(1, lines.get("s3://prefixes/run/sharded/model.safetensors.index.json|checkpoint").get("requests")
                .asLong(), "the index: its two shards' reads are on their own lines, never counted again");
        JsonNode summary = run.summary();
        assertEquals(1, summary.get("requests").asLong(), "the listing's one page: " + run.describe());
        assertEquals(5, summary.get("counts").get("valid").asLong(), run.describe());
        assertEquals(1, summary.get("counts").get("invalid").asLong(), run.describe());
        assertTrue(run.stderr().contains("safetensors: 6 results: 5 valid, 1 invalid; listing: 1 request"),
                run.describe());
    }

    @Test
    void oneLevelPrefixSkipsSubprefixes() {
        Cli.Run run = InProcess.run(ENV, "validate", "--json", "--s3-endpoint", endpoint, "--s3-path-style",
                "s3://prefixes/run/").exits(1);
        assertEquals(java.util.Set.of("s3://prefixes/run/a.safetensors|file",
                "s3://prefixes/run/broken.safetensors|file"), bySource(run).keySet(), run.describe());
    }

    @Test
    void excludeAndIncludeGlobsSelectNames() {
        Cli.Run run = InProcess.run(ENV, "validate", "--json", "--recursive", "--exclude", "broken*", "--include",
                "*.safetensors", "--s3-endpoint", endpoint, "--s3-path-style", "s3://prefixes/run/").exits(0);
        assertEquals(5, run.json().size(), run.describe());
    }

    @Test
    void verifyMatchesAPrefixWithItsManifest(@TempDir Path tmp) throws Exception {
        Cli.Run made = InProcess.run(ENV, "manifest", "--recursive", "--exclude", "broken*", "--s3-endpoint", endpoint,
                "--s3-path-style", "s3://prefixes/run/").exits(0);
        String gone = "{\"source\":\"s3://prefixes/run/nested/gone.safetensors\",\"size\":1,\"sha256\":\""
                + "0".repeat(64) + "\"},\n";
        // one entry more than the prefix holds: reported missing
        Path manifest = Files.writeString(tmp.resolve("run.manifest.json"),
                made.out().replace("\"files\": [\n", "\"files\": [\n" + gone));
        assertTrue(Files.readString(manifest).contains("gone.safetensors"), made.describe());
        Cli.Run run = InProcess.run(ENV, "verify", "--json", "--manifest", manifest.toString(), "--recursive",
                "--s3-endpoint", endpoint, "--s3-path-style", "s3://prefixes/run/").exits(3);
        Map<String, JsonNode> lines = bySource(run);
        assertEquals("valid", lines.get("s3://prefixes/run/nested/deeper/c.safetensors|file").get("status").asString());
        assertEquals("valid", lines.get("s3://prefixes/run/sharded/model.safetensors.index.json|checkpoint")
                .get("status").asString(), run.describe());
        assertEquals(ErrorCode.NOT_IN_MANIFEST.name(),
                lines.get("s3://prefixes/run/broken.safetensors|file").get("code").asString(), run.describe());
        assertEquals("NOT_FOUND", lines.get("s3://prefixes/run/nested/gone.safetensors|file").get("code").asString(),
                run.describe());
        assertEquals("valid", lines.get("s3://prefixes/run/sharded/model.safetensors.index.json|file").get("status")
                .asString(), "the index file, compared with its entry\n" + run.describe());
        assertTrue(run.stderr().contains("safetensors: 8 results: 6 valid, 1 invalid, 1 error; listing: 1 request"),
                run.describe());
    }

    @Test
    void aMissingBucketIsOneErrorLine() {
        Cli.Run run = InProcess.run(ENV, "validate", "--json", "--s3-endpoint", endpoint, "--s3-path-style",
                "s3://no-such-bucket/run/").exits(3);
        JsonNode line = run.json().get(0);
        assertEquals("error", line.get("status").asString(), run.describe());
        assertEquals("NOT_FOUND", line.get("code").asString(), run.describe());
        // the one refused List request, on the prefix's line and not again in the summary's listing requests
        assertEquals(1, line.get("requests").asLong() + run.summary().get("requests").asLong(), run.describe());
    }
}
