package dev.safetensors.cli;

import dev.safetensors.DType;
import dev.safetensors.core.SafetensorsFile;
import dev.safetensors.core.SafetensorsWriter;
import dev.safetensors.fixtures.LoopbackS3;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code reshard} from s3proxy, a real S3 API server in this JVM on loopback (the module's shared {@link LoopbackS3},
 * in the bucket {@value #BUCKET} of this class's own), run in-process ({@link InProcess}); s3proxy checks the AWS
 * signatures of the keys the command is handed. The objects are the files of a local folder, which the results are
 * compared with.
 */
class ReshardS3Test {
    private static final Map<String, String> ENV = InProcess.S3_ENV;
    private static final String BUCKET = "reshard";
    /** 1 MiB of F32: 16 parts of the smallest part size. */
    private static final int LARGE_FLOATS = 256 * 1024;

    @TempDir
    static Path store;
    private static Path bucket;
    private static String endpoint;

    @TempDir
    Path out;

    @BeforeAll
    static void start() throws Exception {
        bucket = Files.createDirectories(store.resolve(BUCKET));
        Fixtures.write(bucket, "single/model.safetensors", Fixtures.small().build());
        Fixtures.twoShards(bucket.resolve("sharded"));
        byte[] large = new byte[LARGE_FLOATS * 4];
        new Random(16).nextBytes(large);
        Files.createDirectories(bucket.resolve("large"));
        SafetensorsWriter.create().tensor("norm", DType.F32, new long[] {4}, new byte[16])
                .tensor("embed", DType.F32, new long[] {LARGE_FLOATS}, large)
                .writeTo(bucket.resolve("large/model.safetensors"));

        LoopbackS3 s3 = LoopbackS3.shared();
        s3.putFiles(BUCKET, bucket);
        endpoint = s3.endpoint().toString();
    }

    private Cli.Run reshard(String... args) {
        List<String> line = new java.util.ArrayList<>(List.of("reshard", "--json", "--s3-endpoint", endpoint,
                "--out", out.toString()));
        line.addAll(List.of(args));
        return InProcess.run(ENV, line.toArray(String[]::new));
    }

    private static JsonNode summary(Cli.Run run) {
        JsonNode last = run.summary();
        assertEquals("reshard", last.get("command").asString(), run.describe());
        assertEquals("valid", last.get("status").asString(), run.describe());
        return last;
    }

    @Test
    void aSingleObjectIsSplitIntoVerifiedShards() throws Exception {
        Cli.Run run = reshard("s3://reshard/single/model.safetensors", "--max-shard-size", "20B").exits(0);
        JsonNode summary = summary(run);
        assertEquals("s3://reshard/single/model.safetensors", summary.get("source").asString());
        assertTrue(summary.get("file_count").asInt() > 2, run.describe());
        // the object is small: its tensors came with the header's read, so one GET is the whole cost
        assertEquals(1, summary.get("requests").asLong(), run.describe());
        ReshardTest.assertSameTensorsAcross(bucket.resolve("single/model.safetensors"), out);
        InProcess.run("validate", out.resolve("model.safetensors.index.json").toString()).exits(0);
    }

    @Test
    void anIndexWithTwoShardsIsMergedIntoOneFile() throws Exception {
        Cli.Run run = reshard("s3://reshard/sharded/model.safetensors.index.json", "--single",
                "--metadata", "source=s3").exits(0);
        JsonNode summary = summary(run);
        assertEquals(3, summary.get("tensor_count").asInt(), run.describe());
        assertEquals(1 + 2, summary.get("requests").asLong(), "the index, then one GET per shard: " + run.describe());
        Path merged = out.resolve("model.safetensors");
        try (SafetensorsFile m = SafetensorsFile.open(merged)) {
            assertEquals("s3", m.header().metadata().get("source"));
            assertEquals(3, m.header().tensors().size());
        }
        for (String shard : List.of("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors")) {
            try (SafetensorsFile s = SafetensorsFile.open(bucket.resolve("sharded").resolve(shard));
                 SafetensorsFile m = SafetensorsFile.open(merged)) {
                for (var t : s.header().tensors()) {
                    assertEquals(s.readBytes(t.name()), m.readBytes(t.name()), t.name());
                }
            }
        }
    }

    @Test
    void aLargeTensorComesInParallelPartsAndOneStreamWithParallelOne() throws Exception {
        Path source = bucket.resolve("large/model.safetensors");
        Cli.Run stream = reshard("s3://reshard/large/model.safetensors", "--single", "--parallel", "1").exits(0);
        long streamed = summary(stream).get("requests").asLong();
        ReshardTest.assertSameTensors(source, out.resolve("model.safetensors"));

        Cli.Run parts = reshard("s3://reshard/large/model.safetensors", "--single", "--force", "--parallel", "4",
                "--part-size", "65536").exits(0);
        long parted = summary(parts).get("requests").asLong();
        ReshardTest.assertSameTensors(source, out.resolve("model.safetensors"));
        // the header's GET, then the 1 MiB tensor as one ranged GET, or as 16 parts of 64 KiB
        assertEquals(2, streamed, stream.describe());
        assertEquals(1 + 16, parted, parts.describe());
    }
}
