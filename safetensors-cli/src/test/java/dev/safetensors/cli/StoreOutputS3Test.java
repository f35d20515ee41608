package dev.safetensors.cli;

import dev.safetensors.DType;
import dev.safetensors.core.ShardedWriter;
import dev.safetensors.fixtures.FakeHub;
import dev.safetensors.fixtures.LoopbackS3;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedSet;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code reshard --out s3://...} and {@code download --out s3://...} against s3proxy in this JVM (the module's shared
 * {@link LoopbackS3}, in a bucket of this class's own, {@value #BUCKET}), whose blob store records in order every
 * object the requests made visible or deleted: the shards committed before the index, a second run refused without
 * {@code --force}, a forced run leaving the new layout alone, and a Hub repository mirrored byte for byte.
 */
class StoreOutputS3Test {
    private static final Map<String, String> ENV = InProcess.S3_ENV;
    private static final String BUCKET = "written";
    /** Tensors of 100 KiB each: 300KB shards hold two. */
    private static final int TENSORS = 7;
    private static final int TENSOR_BYTES = 100 * 1024;

    @TempDir
    static Path sources;
    private static Path index;
    private static LoopbackS3 s3;
    private static String endpoint;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() throws Exception {
        Random random = new Random(35);
        ShardedWriter writer = ShardedWriter.create(250_000).metadata("format", "pt");
        for (int i = 0; i < TENSORS; i++) {
            byte[] bytes = new byte[TENSOR_BYTES];
            random.nextBytes(bytes);
            writer.tensor("layer" + i + ".weight", DType.U8, new long[] {TENSOR_BYTES}, bytes);
        }
        writer.writeTo(sources.resolve("sharded"));
        index = sources.resolve("sharded/model.safetensors.index.json");
        s3 = LoopbackS3.shared();
        s3.put(BUCKET, "placeholder", new byte[0]);
        endpoint = s3.endpoint().toString();
    }

    private static Cli.Run run(String... args) {
        List<String> line = new ArrayList<>(List.of(args));
        line.addAll(List.of("--s3-endpoint", endpoint, "--s3-path-style"));
        return InProcess.run(ENV, line.toArray(String[]::new));
    }

    /** Downloads a prefix back into a local folder, through the command's own reads. */
    private Path readBack(String prefix) {
        Path back = dir.resolve("back-" + Integer.toHexString(prefix.hashCode()));
        run("download", "s3://" + BUCKET + "/" + prefix, "--out", back.toString()).exits(0);
        return back;
    }

    @Test
    void reshardUploadsEveryShardBeforeTheIndexAndRefusesASecondRunWithoutForce() throws Exception {
        Cli.Run run = run("reshard", "--json", index.toString(), "--out", "s3://" + BUCKET + "/a/",
                "--max-shard-size", "300KB").exits(0);
        List<JsonNode> lines = run.jsonLines();
        List<String> outputs = new ArrayList<>();
        for (JsonNode line : lines.subList(0, lines.size() - 1)) {
            outputs.add(line.get("output").asString());
            assertEquals("valid", line.get("status").asString(), run.describe());
        }
        List<String> expected = List.of("model-00001-of-00004.safetensors", "model-00002-of-00004.safetensors",
                "model-00003-of-00004.safetensors", "model-00004-of-00004.safetensors",
                "model.safetensors.index.json");
        assertEquals(expected.stream().map(n -> "s3://" + BUCKET + "/a/" + n).toList(), outputs, run.describe());
        assertEquals("output_index", lines.get(lines.size() - 2).get("kind").asString());
        assertEquals(new TreeSet<>(expected), keys("a/"), "nothing else under the prefix: no staging, no marker");

        List<String> log = s3.mutations(BUCKET).stream().filter(m -> m.contains(" a/")).toList();
        assertEquals(5, log.size(), log.toString());
        assertEquals("put a/model.safetensors.index.json", log.get(4), "the index is made visible last: " + log);

        Path back = readBack("a/");
        ReshardTest.assertSameTensorsAcross(merged(), back);

        int before = s3.mutations(BUCKET).size();
        Cli.Run again = run("reshard", "--json", index.toString(), "--out", "s3://" + BUCKET + "/a/",
                "--max-shard-size", "300KB").exits(3);
        assertEquals("ALREADY_EXISTS", again.summary().get("code").asString(), again.describe());
        assertTrue(again.summary().get("message").asString().contains("--force"), again.describe());
        assertEquals(before, s3.mutations(BUCKET).size(), "a refused run changes nothing");
    }

    @Test
    void aForcedReshardOverAnotherLayoutLeavesTheNewLayoutAlone() throws Exception {
        run("reshard", index.toString(), "--out", "s3://" + BUCKET + "/b/", "--max-shard-size", "300KB").exits(0);
        int before = s3.mutations(BUCKET).size();
        run("reshard", index.toString(), "--out", "s3://" + BUCKET + "/b", "--single", "--force").exits(0);
        assertEquals(new TreeSet<>(List.of("model.safetensors")), keys("b/"));
        List<String> log = s3.mutations(BUCKET).subList(before, s3.mutations(BUCKET).size());
        assertTrue(log.get(0).endsWith("b/model.safetensors"), "the single file first: " + log);
        assertEquals("delete b/model.safetensors.index.json", log.get(1), "then the old index, before its shards");
        ReshardTest.assertSameTensorsAcross(merged(), readBack("b/"));
    }

    @Test
    void anUploadPartBelowFiveMebibytesIsAUsageError() {
        Cli.Run run = run("reshard", index.toString(), "--out", "s3://" + BUCKET + "/c/", "--part-size", "1MiB")
                .exits(2);
        assertTrue(run.stderr().contains("--part-size: an upload's parts are from"), run.describe());
        assertEquals(new TreeSet<>(), keys("c/"));
    }

    @Test
    void aHubRepositoryIsMirroredByteForByteWithItsIndexLast() throws Exception {
        Path served = dir.resolve("served");
        Path repo = Files.createDirectories(served.resolve("acme/tiny"));
        List<String> names = new ArrayList<>();
        try (var files = Files.list(index.getParent())) {
            for (Path f : files.sorted().toList()) {
                Files.copy(f, repo.resolve(f.getFileName().toString()));
                names.add(f.getFileName().toString());
            }
        }
        Files.writeString(repo.resolve("config.json"), "{\"model_type\":\"tiny\"}");
        names.add("config.json");
        try (FakeHub hub = new FakeHub()) {
            hub.repository("acme/tiny", served, names);
            Map<String, String> env = new java.util.HashMap<>(ENV);
            env.put("HF_ENDPOINT", hub.endpoint().toString());
            List<String> line = List.of("download", "--json", "hf://acme/tiny", "--out", "s3://" + BUCKET + "/mirror/",
                    "--s3-endpoint", endpoint, "--s3-path-style");
            Cli.Run run = InProcess.run(env, line.toArray(String[]::new)).exits(0);
            for (JsonNode l : run.jsonLines().subList(0, names.size())) {
                assertEquals("uploaded", l.get("outcome").asString(), run.describe());
            }
            assertEquals(new TreeSet<>(names), keys("mirror/"));
            for (String name : names) {
                assertArrayEquals(Files.readAllBytes(repo.resolve(name)), s3.get(BUCKET, "mirror/" + name), name);
            }
            List<String> log = s3.mutations(BUCKET).stream().filter(m -> m.contains(" mirror/")).toList();
            assertEquals("put mirror/model.safetensors.index.json", log.get(log.size() - 1), log.toString());
            InProcess.run(env, line.toArray(String[]::new)).exits(3);
        }
    }

    private static SortedSet<String> keys(String prefix) {
        SortedSet<String> keys = new TreeSet<>();
        for (String k : s3.keys(BUCKET, prefix)) {
            keys.add(k.substring(prefix.length()));
        }
        return keys;
    }

    /** The sharded source merged into one local file, to compare a folder of shards with. */
    private Path merged() throws Exception {
        Path out = dir.resolve("merged");
        if (!Files.exists(out.resolve("model.safetensors"))) {
            InProcess.run("reshard", index.toString(), "--out", out.toString(), "--single").exits(0);
        }
        return out.resolve("model.safetensors");
    }
}
