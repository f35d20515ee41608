package dev.safetensors.cli;

import dev.safetensors.fixtures.SafetensorsFixture;
import dev.safetensors.fixtures.GcsStandIn;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code gs://} sources end to end: the command, run in-process ({@link InProcess}), finds the GCS backend
 * through {@code ServiceLoader}, the injected {@code STORAGE_EMULATOR_HOST} points its Google client at a loopback {@link GcsStandIn}, and each test checks
 * both what the command printed and the exact requests that reached the stand-in: one ranged media GET for a header
 * that fits the 128 KiB prefix and no metadata request, a second range for exactly the rest of a larger header, the
 * object name as one percent-encoded path segment, a pinned generation sent as a precondition, Cloud Storage's
 * refusals turned into the right exit code and a message naming the {@code gs://} source, and a sharded checkpoint
 * whose index names shards that are objects beside it.
 */
class GcsSourcesTest {
    private static final String BUCKET = "models";
    private static final long GENERATION = 1712345678901234L;
    private static final String MEDIA = "GET /download/storage/v1/b/" + BUCKET + "/o/";
    private static final String METADATA = "GET /storage/v1/b/" + BUCKET + "/o/";
    private static final String PREFIX = " Range: bytes=0-131071";
    private static final String SHARD1 = "model-00001-of-00002.safetensors";
    private static final String SHARD2 = "model-00002-of-00002.safetensors";
    private static final int MANY_TENSORS = 3000;

    @TempDir
    static Path dir;
    private static GcsStandIn gcs;
    private static Map<String, String> env;
    private static byte[] small;
    private static byte[] large;

    @BeforeAll
    static void start() throws Exception {
        gcs = new GcsStandIn();
        small = Fixtures.small().build();
        SafetensorsFixture many = SafetensorsFixture.create().metadata("format", "pt");
        for (int i = 0; i < MANY_TENSORS; i++) {
            many.tensor("model.layers." + i + ".weight", "F32", 2);
        }
        large = many.build();
        gcs.put(BUCKET, "model.safetensors", small, GENERATION);
        gcs.put(BUCKET, "runs/7/model.safetensors", small, GENERATION + 7);
        gcs.put(BUCKET, "large.safetensors", large, GENERATION);
        gcs.put(BUCKET, "gap.safetensors", SafetensorsFixture.create().tensor("w", "F32", new long[] {1}, 4, 8)
                .build(), GENERATION);
        Fixtures.twoShards(dir);
        for (String file : List.of("model.safetensors.index.json", SHARD1, SHARD2)) {
            gcs.put(BUCKET, "ckpt/" + file, Files.readAllBytes(dir.resolve(file)), GENERATION);
        }
        env = Map.of("STORAGE_EMULATOR_HOST", gcs.hostAndPort(), "GOOGLE_CLOUD_PROJECT", "test");
    }

    @AfterAll
    static void stop() throws Exception {
        gcs.close();
    }

    @BeforeEach
    void forget() {
        gcs.forgetRequests();
    }

    private static long headerLength(byte[] file) {
        return ByteBuffer.wrap(file, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    private static String pinned(long generation) {
        return "&generation=" + generation + "&ifGenerationMatch=" + generation;
    }

    @Test
    void aHeaderThatFitsThePrefixCostsOneMediaGetAndNoMetadataRequest() {
        String source = "gs://" + BUCKET + "/model.safetensors";
        Cli.Run text = InProcess.run(env, "inspect", source).exits(0);
        assertTrue(text.out().startsWith(source + "\n"), text.describe());
        assertTrue(text.out().contains("status      OK (checks: prefix, header, layout)"), text.describe());
        assertTrue(text.out().contains("tensors     3 tensors, 12 parameters"), text.describe());
        assertTrue(text.out().contains("cost        1 read request, " + small.length + " B read"), text.describe());
        assertEquals("", text.stderr(), text.describe());
        assertEquals(List.of(MEDIA + "model.safetensors?alt=media" + PREFIX), gcs.requests(), text.describe());

        gcs.forgetRequests();
        Cli.Run json = InProcess.run(env, "inspect", "--json", source).exits(0);
        List<JsonNode> lines = json.json();
        assertEquals(1, lines.size(), json.describe());
        JsonNode r = lines.get(0);
        assertEquals(source, r.get("source").asString());
        assertEquals("valid", r.get("status").asString());
        assertEquals(3, r.get("tensor_count").asInt());
        assertEquals(small.length, r.get("size").asLong());
        assertEquals(1, r.get("requests").asInt(), json.describe());
        assertEquals(small.length, r.get("bytes_read").asLong(), "smaller than the prefix: the whole file\n"
                + json.describe());
        assertEquals(Long.toString(GENERATION), r.get("attributes").get("version").asString(), json.describe());
        assertEquals(List.of(MEDIA + "model.safetensors?alt=media" + PREFIX), gcs.requests(), json.describe());
    }

    @Test
    void aHeaderLargerThanThePrefixCostsOneMoreRangeForExactlyTheRest() {
        long header = headerLength(large);
        assertTrue(8 + header > 128 * 1024 && large.length > 8 + header, "the fixture's header must pass the prefix");
        Cli.Run run = InProcess.run(env, "inspect", "--json", "gs://" + BUCKET + "/large.safetensors").exits(0);
        JsonNode r = run.json().get(0);
        assertEquals("valid", r.get("status").asString(), run.describe());
        assertEquals(MANY_TENSORS, r.get("tensor_count").asInt());
        assertEquals(large.length, r.get("size").asLong());
        assertEquals(2, r.get("requests").asInt(), run.describe());
        assertEquals(8 + header, r.get("bytes_read").asLong(), "the header and not one payload byte\n"
                + run.describe());
        String rest = " Range: bytes=131072-" + (8 + header - 1);
        assertEquals(List.of(MEDIA + "large.safetensors?alt=media" + PREFIX,
                MEDIA + "large.safetensors?alt=media" + pinned(GENERATION) + rest), gcs.requests(), run.describe());
    }

    @Test
    void anObjectNameWithSlashesIsOneEncodedPathSegment() {
        String source = "gs://" + BUCKET + "/runs/7/model.safetensors";
        Cli.Run run = InProcess.run(env, "validate", "--json", source).exits(0);
        JsonNode r = run.json().get(0);
        assertEquals(source, r.get("source").asString(), run.describe());
        assertEquals("valid", r.get("status").asString(), run.describe());
        assertEquals(Long.toString(GENERATION + 7), r.get("attributes").get("version").asString(), run.describe());
        assertEquals(List.of(MEDIA + "runs%2F7%2Fmodel.safetensors?alt=media" + PREFIX), gcs.requests(),
                run.describe());
    }

    @Test
    void aPinnedGenerationIsSentAsAPreconditionAndAnotherOneIsRefused() {
        String source = "gs://" + BUCKET + "/model.safetensors";
        Cli.Run run = InProcess.run(env, "validate", "--json", source + "#" + GENERATION).exits(0);
        JsonNode r = run.json().get(0);
        assertEquals("valid", r.get("status").asString(), run.describe());
        assertEquals(Long.toString(GENERATION), r.get("attributes").get("version").asString(), run.describe());
        assertEquals(List.of(MEDIA + "model.safetensors?alt=media" + pinned(GENERATION) + PREFIX), gcs.requests(),
                run.describe());

        gcs.forgetRequests();
        long stale = GENERATION - 1;
        Cli.Run refused = InProcess.run(env, "validate", source + "#" + stale).exits(3);
        assertEquals(List.of(), refused.outLines(), refused.describe());
        assertEquals(1, refused.errLines().size(), refused.describe());
        String line = refused.errLines().get(0);
        assertTrue(line.startsWith("ERROR       " + source), refused.describe());
        assertTrue(line.contains("generation " + stale), refused.describe());
        assertTrue(line.endsWith("[SOURCE_CHANGED]"), refused.describe());
        assertEquals(List.of(MEDIA + "model.safetensors?alt=media" + pinned(stale) + PREFIX), gcs.requests(),
                "one request, not retried, and no metadata request for a size the failed read did not learn");
    }

    @Test
    void aMissingObjectIsNotFoundUnderItsGsName() {
        String source = "gs://" + BUCKET + "/absent.safetensors";
        Cli.Run run = InProcess.run(env, "validate", source).exits(3);
        assertEquals(List.of(), run.outLines(), run.describe());
        assertEquals(1, run.errLines().size(), run.describe());
        String line = run.errLines().get(0);
        assertTrue(line.startsWith("ERROR       " + source + ": "), run.describe());
        assertTrue(line.endsWith("[NOT_FOUND]"), run.describe());
        assertTrue(!run.stderr().contains("\tat "), run.describe());
        assertEquals(List.of(MEDIA + "absent.safetensors?alt=media" + PREFIX), gcs.requests(),
                "one request, not retried, and no metadata request after it");

        Cli.Run json = InProcess.run(env, "validate", "--json", source).exits(3);
        JsonNode r = json.json().get(0);
        assertEquals("error", r.get("status").asString());
        assertEquals("NOT_FOUND", r.get("code").asString());
        assertEquals(source, r.get("source").asString());
        assertTrue(r.get("message").asString().contains("no such object"), json.describe());
    }

    @Test
    void anInvalidObjectFailsItsRule() {
        String source = "gs://" + BUCKET + "/gap.safetensors";
        Cli.Run run = InProcess.run(env, "validate", source).exits(1);
        assertEquals(List.of("INVALID     " + source + ": tensor \"w\": payload bytes [0, 4) belong to no tensor"
                + " [OFFSETS_GAP]"), run.outLines(), run.describe());
        assertEquals("", run.stderr(), run.describe());
        assertEquals(List.of(MEDIA + "gap.safetensors?alt=media" + PREFIX), gcs.requests(), run.describe());
    }

    @Test
    void aShardedCheckpointOnGcsExpandsIntoTheShardsBesideItsIndex() throws Exception {
        String base = "gs://" + BUCKET + "/ckpt/";
        String index = base + "model.safetensors.index.json";
        Cli.Run run = InProcess.run(env, "validate", "--json", index).exits(0);
        List<JsonNode> lines = run.json();
        assertEquals(3, lines.size(), run.describe());
        assertEquals(base + SHARD1, lines.get(0).get("source").asString());
        assertEquals(base + SHARD2, lines.get(1).get("source").asString());
        for (JsonNode shard : lines.subList(0, 2)) {
            assertEquals("shard", shard.get("kind").asString(), run.describe());
            assertEquals("valid", shard.get("status").asString(), run.describe());
            assertEquals(1, shard.get("requests").asInt(), run.describe());
        }
        JsonNode aggregate = lines.get(2);
        assertEquals("checkpoint", aggregate.get("kind").asString());
        assertEquals(index, aggregate.get("source").asString());
        assertEquals("valid", aggregate.get("status").asString(), run.describe());
        assertEquals(2, aggregate.get("shard_count").asInt());
        assertEquals(3, aggregate.get("tensor_count").asInt());
        assertEquals(48 + 16 + 8, aggregate.get("payload_bytes").asLong());
        assertEquals(1, aggregate.get("requests").asInt(), "one read of the index: the shards' reads are on their lines");
        assertEquals(3, lines.stream().mapToInt(l -> l.get("requests").asInt()).sum(), "the lines add up to the wire");
        assertEquals("{\"index\":\"pass\",\"shards\":\"pass\",\"consistency\":\"pass\"}",
                aggregate.get("checks").toString());
        assertEquals("", run.stderr(), run.describe());

        List<String> seen = gcs.requests();
        assertEquals(3, seen.size(), "the index's first read tells its size: no metadata request\n" + seen);
        assertEquals(MEDIA + "ckpt%2Fmodel.safetensors.index.json?alt=media Range: bytes=0-262143", seen.get(0));
        assertEquals(Set.of(MEDIA + "ckpt%2F" + SHARD1 + "?alt=media" + PREFIX,
                MEDIA + "ckpt%2F" + SHARD2 + "?alt=media" + PREFIX), Set.copyOf(seen.subList(1, 3)));
    }

    @Test
    void anIndexPinnedToAStaleGenerationIsSourceChanged() {
        String index = "gs://" + BUCKET + "/ckpt/model.safetensors.index.json#" + (GENERATION - 1);
        Cli.Run run = InProcess.run(env, "validate", index).exits(3);
        assertEquals(1, run.errLines().size(), run.describe());
        assertTrue(run.errLines().get(0).startsWith("ERROR       " + index + ": "), run.describe());
        assertTrue(run.errLines().get(0).endsWith("[SOURCE_CHANGED]"), "the metadata request's 412, reported as the"
                + " object having changed, not as an internal error\n" + run.describe());
    }
}
