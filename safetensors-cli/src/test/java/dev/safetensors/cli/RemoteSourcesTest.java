package dev.safetensors.cli;

import dev.safetensors.fixtures.FakeHub;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Remote sources without the internet: a sharded checkpoint whose index is an http URL on a real static file server
 * (Jetty, genuine ranges), and Hub repositories {@code hf://OWNER/REPO} on a fake Hub ({@code HF_ENDPOINT}, WireMock)
 * that redirects to that server as the Hub redirects to its CDN.
 */
class RemoteSourcesTest {
    private static final String SHARD1 = "model-00001-of-00002.safetensors";
    private static final String SHARD2 = "model-00002-of-00002.safetensors";

    @TempDir
    static Path root;
    private static FakeHub hub;
    private static Map<String, String> env;

    @BeforeAll
    static void publish() throws Exception {
        Fixtures.twoShards(root.resolve("acme/sharded"));
        Fixtures.write(root, "acme/single/model.safetensors", Fixtures.small().build());
        hub = new FakeHub();
        hub.repository("acme/sharded", root, List.of("README.md", "model.safetensors.index.json", SHARD1, SHARD2));
        hub.repository("acme/single", root, List.of("model.safetensors"));
        hub.repository("acme/nothing", root, List.of("README.md", "pytorch_model.bin"));
        env = Map.of("HF_ENDPOINT", hub.endpoint().toString());
    }

    @AfterAll
    static void stop() throws Exception {
        hub.close();
    }

    @Test
    void aPresignedUrlIsOpenedAsTypedButNamedWithoutItsSignature() {
        String file = hub.cdnBase() + "acme/sharded/" + SHARD1;
        String signed = file + "?X-Amz-Credential=AKIDEXAMPLE&X-Amz-Signature=0123456789abcdef";
        Cli.Run run = InProcess.run("validate", "--json", signed).exits(0);
        assertEquals(file, run.json().get(0).get("source").asString(), run.describe());
        assertFalse(run.out().contains("X-Amz") || run.stderr().contains("X-Amz"), run.describe());
        Cli.Run text = InProcess.run("inspect", signed).exits(0);
        assertFalse(text.out().contains("X-Amz") || text.stderr().contains("X-Amz"), text.describe());
    }

    @Test
    void aRemoteIndexNamesItsShardsBesideIt() {
        String index = hub.cdnBase() + "acme/sharded/model.safetensors.index.json";
        Cli.Run run = InProcess.run("validate", "--json", index).exits(0);
        List<JsonNode> lines = run.json();
        assertEquals(3, lines.size(), run.describe());
        assertEquals(hub.cdnBase() + "acme/sharded/" + SHARD1, lines.get(0).get("source").asString());
        assertEquals(hub.cdnBase() + "acme/sharded/" + SHARD2, lines.get(1).get("source").asString());
        assertEquals(1, lines.get(0).get("requests").asInt(), "a header that fits the prefix costs one request");
        JsonNode aggregate = lines.get(2);
        assertEquals("valid", aggregate.get("status").asString(), run.describe());
        assertEquals(index, aggregate.get("source").asString());
        assertEquals(3, aggregate.get("tensor_count").asInt());
        assertEquals(1, aggregate.get("requests").asInt(), "one read of the index (its size comes with it); each"
                + " shard's read is on its own line, never counted again");
    }

    @Test
    void anS3IndexOnAnS3CompatibleEndpoint() {
        // the static file server answers path-style GETs /BUCKET/KEY with real ranges, as an S3-compatible store
        Map<String, String> s3 = InProcess.S3_ENV;
        String index = "s3://acme/sharded/model.safetensors.index.json";
        Cli.Run run = InProcess.run(s3, "validate", "--json", "--s3-endpoint", hub.cdnBase().toString(), "--s3-path-style",
                index).exits(0);
        List<JsonNode> lines = run.json();
        assertEquals(3, lines.size(), run.describe());
        assertEquals("s3://acme/sharded/" + SHARD1, lines.get(0).get("source").asString());
        assertEquals("valid", lines.get(2).get("status").asString(), run.describe());
        assertEquals("", run.stderr(), run.describe());
    }

    @Test
    void aShardedHubRepositoryExpandsAtTheResolvedCommit() {
        Cli.Run run = InProcess.run(env, "validate", "--json", "hf://acme/sharded").exits(0);
        List<JsonNode> lines = run.json();
        assertEquals(3, lines.size(), run.describe());
        assertEquals("hf://acme/sharded@" + FakeHub.COMMIT + "/" + SHARD1, lines.get(0).get("source").asString());
        assertEquals(FakeHub.COMMIT, lines.get(0).get("attributes").get("revision").asString());
        JsonNode aggregate = lines.get(2);
        assertEquals("hf://acme/sharded", aggregate.get("source").asString());
        assertEquals("checkpoint", aggregate.get("kind").asString());
        assertEquals("acme/sharded", aggregate.get("attributes").get("repository").asString());
        assertEquals(FakeHub.COMMIT, aggregate.get("attributes").get("revision").asString());
        assertEquals(2, aggregate.get("shard_count").asInt());
        assertEquals(3, aggregate.get("tensor_count").asInt());
        assertEquals(48 + 16 + 8, aggregate.get("payload_bytes").asLong());
        assertEquals("{\"index\":\"pass\",\"shards\":\"pass\",\"consistency\":\"pass\"}",
                aggregate.get("checks").toString());
        assertEquals(2, lines.get(0).get("exchanges").asInt(), "a shard read: the Hub's 302, the CDN's 206");
        assertEquals(2, aggregate.get("requests").asInt(), "the listing and the index: the shards' own lines count"
                + " their reads");
        assertEquals(1 + 2, aggregate.get("exchanges").asInt(),
                "the listing is answered by the Hub; the index's read is redirected to the CDN");
        assertEquals(4, lines.stream().mapToInt(l -> l.get("requests").asInt()).sum(),
                "the lines add up to the listing, the index, one read per shard");
    }

    @Test
    void aSingleFileHubRepositoryIsOneResult() {
        Cli.Run run = InProcess.run(env, "validate", "--json", "hf://acme/single").exits(0);
        List<JsonNode> lines = run.json();
        assertEquals(1, lines.size(), run.describe());
        JsonNode r = lines.get(0);
        assertEquals("hf://acme/single@" + FakeHub.COMMIT + "/model.safetensors", r.get("source").asString());
        assertEquals("file", r.get("kind").asString());
        assertEquals("acme/single", r.get("attributes").get("repository").asString());
        assertEquals(2, r.get("requests").asInt(), "the listing and the header read");
        assertEquals(1 + 2, r.get("exchanges").asInt(), "the header read redirected to the CDN");
    }

    @Test
    void aRepositoryWithoutACheckpointIsAnError() {
        Cli.Run run = InProcess.run(env, "validate", "hf://acme/nothing").exits(3);
        assertEquals(1, run.errLines().size(), run.describe());
        String line = run.errLines().get(0);
        assertTrue(line.startsWith("ERROR       hf://acme/nothing: "), run.describe());
        assertTrue(line.contains("acme/nothing") && line.contains("holds no safetensors checkpoint"), run.describe());
        assertTrue(line.endsWith("[NOT_FOUND]"), run.describe());
    }

    @Test
    void aHubManifestRecordsTheReportedDigestAndVerifyComputesItsOwn() throws Exception {
        int before = hub.cdnRequests().size();
        Cli.Run made = InProcess.run(env, "manifest", "hf://acme/sharded").exits(0);
        assertEquals(4, hub.cdnRequests().size() - before, "the index in one read, one header read per shard and no"
                + " download, then the index again for its digest (the Hub reports none for a file outside LFS)\n"
                + made.describe());
        JsonNode files = JsonMapper.builder().build().readTree(made.out()).get("files");
        assertEquals(3, files.size(), made.describe());
        JsonNode index = files.get(2);
        assertTrue(index.get("source").asString().endsWith("/model.safetensors.index.json"), made.out());
        assertEquals(Fixtures.sha256(root.resolve("acme/sharded/model.safetensors.index.json")),
                index.has("sha256") ? index.get("sha256").asString() : index.get("reported_sha256").asString(),
                made.out());
        JsonNode first = files.get(0);
        assertEquals("hf://acme/sharded@" + FakeHub.COMMIT + "/" + SHARD1, first.get("source").asString());
        assertEquals("acme/sharded", first.get("repository").asString());
        assertEquals(FakeHub.COMMIT, first.get("revision").asString());
        Path shard1 = root.resolve("acme/sharded").resolve(SHARD1);
        assertEquals(Files.size(shard1), first.get("size").asLong());
        assertEquals(Fixtures.sha256(shard1), first.get("reported_sha256").asString());
        assertTrue(first.get("reported_by").asString().contains("not computed locally"), made.describe());
        assertFalse(first.has("sha256"), "nothing was computed locally\n" + made.describe());

        Path manifest = Fixtures.write(root, "hub.manifest.json", made.stdout());
        Cli.Run verified = InProcess.run(env, "verify", "--json", "--manifest", manifest.toString()).exits(0);
        for (JsonNode r : verified.json()) {
            assertEquals("pass", r.get("checks").get("sha256").asString(), verified.describe());
            assertEquals("the digest the Hub reported, recorded in the manifest",
                    r.get("sha256_compared_with").asString(), verified.describe());
            if (r.get("source").asString().endsWith(".index.json")) {
                continue; // no header to read first
            }
            assertEquals(2, r.get("requests").asInt(), "header, then one streamed read\n" + verified.describe());
        }

        byte[] bytes = Files.readAllBytes(shard1);
        bytes[bytes.length - 1] ^= 1;
        Files.write(shard1, bytes);
        // the CDN now serves other bytes under the same ETag, while the Hub still reports the first digest
        hub.cdn().publish("/acme/sharded/" + SHARD1, bytes, FakeHub.CDN_ETAG);
        Cli.Run tampered = InProcess.run(env, "verify", "--manifest", manifest.toString()).exits(1);
        assertTrue(tampered.outLines().get(0).contains("the digest the Hub reported, recorded in the manifest says "
                + first.get("reported_sha256").asString()), tampered.describe());
        assertTrue(tampered.outLines().get(0).endsWith("sha256 FAILED; sha256 " + Fixtures.sha256(bytes)
                + " (compared with the digest the Hub reported, recorded in the manifest)"), tampered.describe());
        Cli.Run computed = InProcess.run(env, "manifest", "--compute", "hf://acme/single").exits(0);
        assertEquals(Fixtures.sha256(root.resolve("acme/single/model.safetensors")), JsonMapper.builder().build()
                .readTree(computed.out()).get("files").get(0).get("sha256").asString(), computed.describe());
    }
}
