package dev.safetensors.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.safetensors.ErrorCode;
import dev.safetensors.ErrorCoded;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.TensorInfo;
import dev.safetensors.core.Checkpoint;
import dev.safetensors.core.SafetensorsClient;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
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
 * {@code df.write.format("safetensors")} into a store prefix, whatever the store: subclassed once per store (S3
 * through {@code fs.s3a.*}, Azure, a Hadoop filesystem, GCS), each saying only where its prefixes are. Every layout
 * reads back equal through the Spark source's registry, the prefix holds its entry point (index or manifest) and the
 * files it names and nothing else (no staging object, temporary file or marker of the job's own), a second write
 * without overwrite is refused ({@link ErrorCode#ALREADY_EXISTS}) with nothing changed, an overwrite leaves only
 * the new output, and tasks whose first attempt failed leave nothing of it. The order of the store's mutations
 * (entry point last) is asserted where the store records it: the S3 test ({@code StoreWriteTest}).
 */
abstract class AbstractStoreWriteTest {
    private static final String INDEX = "model.safetensors.index.json";
    private static final ObjectMapper JSON = new ObjectMapper();
    static SparkSession spark;
    @TempDir
    static Path dir;
    private static Path sharded;

    /**
     * @param name a name of the test's own
     * @return a fresh output prefix of the store under test, ending in {@code /}, as a user passes it to
     *         {@code save}
     */
    protected abstract String output(String name);

    @BeforeAll
    static void startSparkAndWriteTheFixture() throws IOException {
        spark = LocalSpark.start();
        sharded = Fixtures.shardedCheckpoint(dir.resolve("sharded"));
    }

    private static Dataset<Row> tensorRows(int partitions) {
        return spark.read().format("safetensors").option("data", "binary").load(sharded.toString())
                .select("tensor", "dtype", "shape", "data").repartition(partitions, functions.col("tensor"));
    }

    private static void writeCheckpoint(String output, int partitions, String maxShardSize, String mode) {
        writeCheckpoint(output, partitions, maxShardSize, mode, "");
    }

    /** @param failFirst the partitions whose first attempt fails (the option's test hook), comma-separated */
    private static void writeCheckpoint(String output, int partitions, String maxShardSize, String mode,
                                        String failFirst) {
        tensorRows(partitions).write().format("safetensors").option("layout", "checkpoint")
                .option("maxShardSize", maxShardSize).option("testFailFirstAttempt", failFirst).mode(mode)
                .save(output);
    }

    /** @return the names of every object under the prefix, as the Spark source's registry lists them */
    protected Set<String> names(String output) throws IOException {
        Set<String> names = new TreeSet<>();
        Location prefix = Location.parse(Locations.normalize(output));
        try (Listing listing = SparkSources.registry().list(prefix, ListOptions.DEFAULT.withRecursive(true))) {
            while (listing.hasNext()) {
                ListEntry e = listing.next();
                assertTrue(e.location().text().startsWith(prefix.text()), e.location().display());
                names.add(e.location().text().substring(prefix.text().length()));
            }
        }
        return names;
    }

    /** @return the entry point's JSON, read through the Spark source's registry */
    private static JsonNode json(String output, String name) throws IOException {
        try (RandomAccessSource source = SparkSources.registry().open(Location.parse(Locations.normalize(output
                + name)))) {
            ByteBuffer all = ByteBuffer.allocate(Math.toIntExact(source.size()));
            source.readFully(0, all);
            return JSON.readTree(all.array());
        }
    }

    private static ErrorCode codeOf(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof ErrorCoded coded) {
                return coded.code();
            }
        }
        throw new AssertionError("no coded failure in", t);
    }

    /** @return the checkpoint's index and the shards it names */
    private static Set<String> checkpoint(String output) throws IOException {
        Set<String> names = new TreeSet<>();
        json(output, INDEX).get("weight_map").forEach(f -> names.add(f.asText()));
        names.add(INDEX);
        return names;
    }

    private static void assertSameTensors(String output) throws IOException {
        SafetensorsClient client = SafetensorsClient.builder().registry(SparkSources.registry()).build();
        try (Checkpoint a = Checkpoint.open(sharded.resolve(INDEX));
             Checkpoint b = client.openCheckpoint(Location.parse(Locations.normalize(output + INDEX)))) {
            assertEquals(a.tensors().size(), b.tensors().size());
            for (TensorInfo t : a.tensors()) {
                TensorInfo u = b.tensor(t.name());
                assertEquals(t.dtype(), u.dtype(), t.name());
                assertArrayEquals(t.shape(), u.shape(), t.name());
                assertEquals(a.readBytes(t.name()), b.readBytes(t.name()), t.name());
            }
        }
    }

    @Test
    void aCheckpointReadsBackEqualHoldsNothingElseAndIsNotWrittenOver() throws IOException {
        String output = output("ckpt");
        writeCheckpoint(output, 2, "1KB", "errorifexists");
        assertSameTensors(output);
        Set<String> names = checkpoint(output);
        assertEquals(names, names(output), "the index and its shards, nothing of the job's own");
        assertTrue(names.size() > 3, "several shards from two tasks: " + names);
        assertEquals(6, spark.read().format("safetensors").load(output + INDEX).count(),
                "the Spark source reads it through its index");

        Exception e = assertThrows(Exception.class, () -> writeCheckpoint(output, 1, "1KB", "errorifexists"));
        assertEquals(ErrorCode.ALREADY_EXISTS, codeOf(e));
        assertEquals(names, names(output), "nothing changed");
    }

    @Test
    void failedFirstAttemptsLeaveNothingOfTheirOwn() throws IOException {
        String output = output("retried");
        writeCheckpoint(output, 2, "1KB", "errorifexists", "0,1");
        assertSameTensors(output);
        assertEquals(checkpoint(output), names(output), "only what the retried attempts committed");
    }

    @Test
    void anOverwriteLeavesOnlyTheNewCheckpoint() throws IOException {
        String output = output("replaced");
        writeCheckpoint(output, 2, "1KB", "errorifexists");
        writeCheckpoint(output, 1, "5GB", "overwrite");
        assertSameTensors(output);
        Set<String> now = checkpoint(output);
        assertEquals(2, now.size(), "one shard, and an index even for one: " + now);
        assertEquals(now, names(output), "the old shards are gone");
    }

    @Test
    void theSamplesAndKeyedLayoutsPublishTheirEntryPointsAndNothingElse() throws IOException {
        List<Row> samples = new ArrayList<>();
        List<Row> keyed = new ArrayList<>();
        for (int r = 0; r < 10; r++) {
            samples.add(RowFactory.create(new float[]{r, r + 0.5f}, (long) r));
            keyed.add(RowFactory.create("k" + r, new float[]{r, -r}));
        }
        String samplesOut = output("samples");
        spark.createDataFrame(samples, new StructType()
                        .add("x", DataTypes.createArrayType(DataTypes.FloatType, false)).add("label", DataTypes.LongType))
                .repartition(2).write().format("safetensors").option("layout", "samples").option("batchSize", "3")
                .save(samplesOut);
        JsonNode manifest = json(samplesOut, "manifest.json");
        assertEquals(10, manifest.get("rows").asLong());
        Set<String> files = new TreeSet<>();
        manifest.get("files").forEach(f -> files.add(f.get("file").asText()));
        files.add("manifest.json");
        assertEquals(files, names(samplesOut));
        assertEquals(manifest.get("files").size(), spark.read().format("safetensors").load(samplesOut)
                .where("tensor = 'label'").count(), "each file read back through the source");

        String keyedOut = output("keyed");
        spark.createDataFrame(keyed, new StructType().add("id", DataTypes.StringType)
                        .add("v", DataTypes.createArrayType(DataTypes.FloatType, false)))
                .repartition(2).write().format("safetensors").option("layout", "keyed").option("key", "id")
                .save(keyedOut);
        JsonNode index = json(keyedOut, "index.json");
        assertEquals(10, index.get("keys").size());
        Set<String> keyedFiles = new TreeSet<>();
        index.get("files").forEach(f -> keyedFiles.add(f.asText()));
        keyedFiles.add("index.json");
        assertEquals(keyedFiles, names(keyedOut));
    }
}
