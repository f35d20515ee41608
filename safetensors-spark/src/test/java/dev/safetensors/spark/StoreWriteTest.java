package dev.safetensors.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.safetensors.ErrorCode;
import dev.safetensors.ErrorCoded;
import dev.safetensors.Location;
import dev.safetensors.TensorInfo;
import dev.safetensors.core.Checkpoint;
import dev.safetensors.core.SafetensorsClient;
import dev.safetensors.core.Sources;
import dev.safetensors.fixtures.LoopbackS3;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * df.write.format("safetensors") into a store prefix, served by the test kit's shared s3proxy in a bucket of this
 * class's own: the objects the store holds afterwards, and the order it made them visible or deleted them.
 */
class StoreWriteTest {
    private static final String BUCKET = "spark-writes";
    private static final String INDEX = "model.safetensors.index.json";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static SparkSession spark;
    private static LoopbackS3 s3;
    @TempDir
    static Path dir;
    private static Path sharded;

    @BeforeAll
    static void start() throws IOException {
        s3 = LoopbackS3.shared();
        // the executors' S3 backend follows the SDK's configuration chain, as on a cluster
        System.setProperty("aws.endpointUrl", s3.endpoint().toString());
        s3.put(BUCKET, "elsewhere/kept.txt", "not under any output".getBytes(StandardCharsets.UTF_8));
        spark = LocalSpark.start();
        sharded = Fixtures.shardedCheckpoint(dir.resolve("sharded"));
    }

    @AfterAll
    static void stop() {
        System.clearProperty("aws.endpointUrl");
    }

    /** The fixture's tensor rows in {@code partitions} tasks. */
    private static Dataset<Row> tensorRows(int partitions) {
        return spark.read().format("safetensors").option("data", "binary").load(sharded.toString())
                .select("tensor", "dtype", "shape", "data").repartition(partitions, functions.col("tensor"));
    }

    private static void writeCheckpoint(String output, int partitions, String maxShardSize, String mode,
                                        String failFirst) {
        tensorRows(partitions).write().format("safetensors").option("layout", "checkpoint")
                .option("maxShardSize", maxShardSize).option("testFailFirstAttempt", failFirst).mode(mode)
                .save(output);
    }

    /** @return the index's shards and the index: what a checkpoint under {@code prefix} consists of */
    private static Set<String> checkpointKeys(String prefix) throws IOException {
        JsonNode index = JSON.readTree(s3.get(BUCKET, prefix + INDEX));
        Set<String> keys = new TreeSet<>();
        index.get("weight_map").forEach(f -> keys.add(prefix + f.asText()));
        keys.add(prefix + INDEX);
        return keys;
    }

    /** Every tensor of the store's checkpoint under {@code prefix} has the fixture's dtype, shape and bytes. */
    private static void assertSameTensors(String prefix) throws IOException {
        SafetensorsClient client = SafetensorsClient.builder().registry(Sources.registry()).build();
        try (Checkpoint a = Checkpoint.open(sharded.resolve(INDEX));
             Checkpoint b = client.openCheckpoint(Location.parse("s3://" + BUCKET + "/" + prefix + INDEX))) {
            assertEquals(a.tensors().size(), b.tensors().size());
            for (TensorInfo t : a.tensors()) {
                TensorInfo u = b.tensor(t.name());
                assertEquals(t.dtype(), u.dtype(), t.name());
                assertArrayEquals(t.shape(), u.shape(), t.name());
                assertEquals(a.readBytes(t.name()), b.readBytes(t.name()), t.name());
            }
        }
    }

    /** @return the store's mutations under {@code prefix} since the {@code from}-th of the bucket */
    private static List<String> mutations(String prefix, int from) {
        List<String> all = s3.mutations(BUCKET);
        return all.subList(from, all.size()).stream().filter(m -> m.substring(m.indexOf(' ') + 1)
                .startsWith(prefix)).toList();
    }

    private static ErrorCode codeOf(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof ErrorCoded coded) {
                return coded.code();
            }
        }
        throw new AssertionError("no coded failure in", t);
    }

    @Test
    void aCheckpointIsPublishedByItsIndexAfterEveryShardAndHoldsNothingElse() throws IOException {
        int before = s3.mutations(BUCKET).size();
        writeCheckpoint("s3a://" + BUCKET + "/ckpt/", 2, "1KB", "errorifexists", "");
        assertSameTensors("ckpt/");
        Set<String> keys = checkpointKeys("ckpt/");
        assertEquals(keys, s3.keys(BUCKET, "ckpt/"), "nothing but the checkpoint");
        assertTrue(keys.size() > 3, "several shards from two tasks: " + keys);
        assertTrue(keys.stream().allMatch(k -> k.equals("ckpt/" + INDEX)
                || k.matches("ckpt/model-[0-9a-f]{8}-0000[01]-\\d{5}\\.safetensors")), keys.toString());
        List<String> order = mutations("ckpt/", before);
        assertEquals(keys.size(), order.size(), "one mutation per object, no deletes: " + order);
        assertEquals("put ckpt/" + INDEX, order.get(order.size() - 1), "the index last: " + order);
        System.out.println("STORE WRITE ORDER " + order);

        int unchanged = s3.mutations(BUCKET).size();
        Exception e = assertThrows(Exception.class,
                () -> writeCheckpoint("s3a://" + BUCKET + "/ckpt/", 1, "1KB", "errorifexists", ""));
        assertEquals(ErrorCode.ALREADY_EXISTS, codeOf(e));
        assertEquals(unchanged, s3.mutations(BUCKET).size(), "nothing changed");
        assertEquals(keys, s3.keys(BUCKET, "ckpt/"));
    }

    @Test
    void anOverwriteLeavesOnlyTheNewSetAndNothingOutsideThePrefixChanges() throws IOException {
        writeCheckpoint("s3://" + BUCKET + "/replaced/", 2, "1KB", "errorifexists", "");
        Set<String> old = checkpointKeys("replaced/");
        int before = s3.mutations(BUCKET).size();
        writeCheckpoint("s3a://" + BUCKET + "/replaced/", 1, "5GB", "overwrite", "");
        assertSameTensors("replaced/");
        Set<String> now = checkpointKeys("replaced/");
        assertEquals(2, now.size(), "one shard, and an index even for one: " + now);
        assertEquals(now, s3.keys(BUCKET, "replaced/"), "the old content is gone");
        List<String> order = mutations("replaced/", before);
        int index = order.indexOf("put replaced/" + INDEX);
        assertTrue(index > 0 && order.subList(index + 1, order.size()).stream().allMatch(m -> m.startsWith("delete")),
                "the new index replaces the old, then the old shards go: " + order);
        old.remove("replaced/" + INDEX);
        assertEquals(old.size(), order.size() - index - 1, order.toString());
        assertEquals(Set.of("elsewhere/kept.txt"), s3.keys(BUCKET, "elsewhere/"));
    }

    @Test
    void aFailedFirstAttemptLeavesNoObjectOfItsOwn() throws IOException {
        int before = s3.mutations(BUCKET).size();
        writeCheckpoint("s3a://" + BUCKET + "/retried/", 2, "1KB", "errorifexists", "0,1");
        assertSameTensors("retried/");
        Set<String> keys = checkpointKeys("retried/");
        assertEquals(keys, s3.keys(BUCKET, "retried/"));
        assertEquals(keys.size(), mutations("retried/", before).size(),
                "the failed attempts uploaded nothing: " + mutations("retried/", before));
    }

    @Test
    void theSamplesManifestIsPublishedLast() throws IOException {
        List<Row> rows = new ArrayList<>();
        for (int r = 0; r < 10; r++) {
            rows.add(RowFactory.create(new float[]{r, r + 0.5f}, (long) r));
        }
        StructType schema = new StructType().add("x", DataTypes.createArrayType(DataTypes.FloatType, false))
                .add("label", DataTypes.LongType);
        int before = s3.mutations(BUCKET).size();
        spark.createDataFrame(rows, schema).repartition(2).write().format("safetensors").option("layout", "samples")
                .option("batchSize", "3").save("s3a://" + BUCKET + "/samples/");
        JsonNode manifest = JSON.readTree(s3.get(BUCKET, "samples/manifest.json"));
        assertEquals(10, manifest.get("rows").asLong());
        Set<String> keys = new TreeSet<>();
        manifest.get("files").forEach(f -> keys.add("samples/" + f.get("file").asText()));
        keys.add("samples/manifest.json");
        assertEquals(keys, s3.keys(BUCKET, "samples/"));
        List<String> order = mutations("samples/", before);
        assertEquals(keys.size(), order.size(), order.toString());
        assertEquals("put samples/manifest.json", order.get(order.size() - 1));
        long labels = spark.read().format("safetensors").load("s3a://" + BUCKET + "/samples/")
                .where("tensor = 'label'").count();
        assertEquals(manifest.get("files").size(), labels, "each file read back through the module's reader");
    }

    @Test
    void theKeyedIndexIsPublishedLastAndAnEmptyCheckpointIsItsOwnEntryPoint() throws IOException {
        List<Row> rows = new ArrayList<>();
        for (int r = 0; r < 6; r++) {
            rows.add(RowFactory.create("k" + r, new float[]{r, -r}));
        }
        StructType schema = new StructType().add("id", DataTypes.StringType)
                .add("v", DataTypes.createArrayType(DataTypes.FloatType, false));
        int before = s3.mutations(BUCKET).size();
        spark.createDataFrame(rows, schema).repartition(2).write().format("safetensors").option("layout", "keyed")
                .option("key", "id").save("s3a://" + BUCKET + "/keyed/");
        JsonNode index = JSON.readTree(s3.get(BUCKET, "keyed/index.json"));
        assertEquals(6, index.get("keys").size());
        Set<String> keys = new TreeSet<>();
        index.get("files").forEach(f -> keys.add("keyed/" + f.asText()));
        keys.add("keyed/index.json");
        assertEquals(keys, s3.keys(BUCKET, "keyed/"));
        List<String> order = mutations("keyed/", before);
        assertEquals("put keyed/index.json", order.get(order.size() - 1), order.toString());

        tensorRows(1).where("false").write().format("safetensors").option("layout", "checkpoint")
                .save("s3a://" + BUCKET + "/empty/");
        assertEquals(Set.of("empty/model.safetensors"), s3.keys(BUCKET, "empty/"));
    }

    @Test
    void aStoreNoBackendWritesIsRefusedBeforeAnyTaskRuns() {
        Exception e = assertThrows(Exception.class,
                () -> writeCheckpoint("nostore://" + BUCKET + "/out/", 1, "1KB", "overwrite", ""));
        assertEquals(ErrorCode.UNSUPPORTED_SCHEME, codeOf(e));
    }

    @Test
    void theJobCommitDeletesWhatDeadAttemptsOfItsJobUploadedAndAnAbortDeletesTheJob() throws IOException {
        String prefix = "jobs/";
        WriteOptions options = WriteOptions.parse(java.util.Map.of("path", "s3://" + BUCKET + "/" + prefix,
                "layout", "samples", WriteOptions.SAVE_MODE, "create"));
        StoreOutput output = StoreOutput.prepare(options, Location.parse("s3://" + BUCKET + "/" + prefix));
        StoreJob job = output.job();
        byte[] file = Fixtures.bytes(1);
        // partition 0 committed one file; a dead attempt of partition 0 had uploaded two, partition 1 one
        for (String name : List.of(job.name(0, 0), job.name(0, 1), job.name(1, 0))) {
            s3.put(BUCKET, prefix + name, file);
        }
        output.publish(java.util.Map.of(job.name(0, 0), job.at(job.name(0, 0)).text()), "manifest.json",
                "{}".getBytes(StandardCharsets.UTF_8));
        assertEquals(Set.of(prefix + job.name(0, 0), prefix + "manifest.json"), s3.keys(BUCKET, prefix));

        StoreOutput second = StoreOutput.prepare(WriteOptions.parse(java.util.Map.of("path", "s3://" + BUCKET
                + "/" + prefix, "layout", "samples", WriteOptions.SAVE_MODE, "overwrite")),
                Location.parse("s3://" + BUCKET + "/" + prefix));
        s3.put(BUCKET, prefix + second.job().name(0, 0), file);
        second.abort();
        assertEquals(Set.of(prefix + job.name(0, 0), prefix + "manifest.json"), s3.keys(BUCKET, prefix),
                "the aborted job's objects gone, the earlier job's kept");

        dev.safetensors.StorageException refused = assertThrows(dev.safetensors.StorageException.class,
                () -> StoreOutput.prepare(options,
                Location.parse("s3://" + BUCKET + "/" + prefix)));
        assertEquals(ErrorCode.ALREADY_EXISTS, refused.code());
    }
}
