package dev.safetensors.spark;

import dev.safetensors.fixtures.LoopbackS3;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * 1,000 objects in s3proxy (a real S3 API server in this JVM, on loopback: the test kit's shared {@link LoopbackS3},
 * the module's only one, with the keys the build hands the SDK's configuration chain), read through the library's S3 backend
 * as {@code s3://} and Hadoop-style {@code s3a://} locations: the {@code requests} metric equals the file count,
 * and each row carries the object's ETag as its version.
 *
 * <p>Slow tier ({@code -Pslow}): 1,000 objects read through Spark.
 */
@Tag("slow")
class S3ObjectsTest {
    private static final String BUCKET = "checkpoints";
    private static final int OBJECTS = 1000;
    private static SparkSession spark;
    private static List<String> locations;

    @BeforeAll
    static void start() throws Exception {
        LoopbackS3 s3 = LoopbackS3.shared();
        // the backend's ServiceLoader-built client follows the SDK's configuration chain, as on a cluster
        System.setProperty("aws.endpointUrl", s3.endpoint().toString());
        byte[] checkpoint = Fixtures.bytes(42);
        locations = new ArrayList<>();
        for (int i = 0; i < OBJECTS; i++) {
            String key = String.format("models/m%04d.safetensors", i);
            s3.put(BUCKET, key, checkpoint);
            locations.add((i % 2 == 0 ? "s3://" : "s3a://") + BUCKET + "/" + key);
        }
        s3.put(BUCKET, "mixed/a.safetensors", checkpoint);
        s3.put(BUCKET, "mixed/nested/b.safetensors", checkpoint);
        s3.put(BUCKET, "mixed/broken.safetensors", "not a safetensors file at all".getBytes(StandardCharsets.UTF_8));
        s3.put(BUCKET, "mixed/notes.txt", "skipped".getBytes(StandardCharsets.UTF_8));
        spark = LocalSpark.start();
    }

    @AfterAll
    static void stop() {
        System.clearProperty("aws.endpointUrl");
    }

    @Test
    void eachHeaderCostsOneRequest() {
        long start = System.nanoTime();
        Dataset<Row> df = spark.read().format("safetensors").option("level", "file").option("ioThreads", "16")
                .option("filesPerPartition", "500").load(locations.toArray(String[]::new));
        List<Row> rows = df.collectAsList();
        long took = System.nanoTime() - start;
        assertEquals(OBJECTS, rows.size());
        rows.forEach(r -> {
            assertNull(r.getAs("error_code"), () -> r.getAs("error"));
            assertNotNull(r.getAs("version"), "the ETag");
            assertEquals(1L, (long) r.getAs("requests"));
        });
        assertTrue(rows.stream().allMatch(r -> ((String) r.getAs("path")).startsWith("s3://")), "s3a is read as s3");
        long requests = LocalSpark.scanMetric(df, RequestsMetric.NAME);
        assertEquals(OBJECTS, LocalSpark.scanMetric(df, FilesMetric.NAME));
        assertEquals(OBJECTS, requests, "one request per file");
        assertEquals(OBJECTS, LocalSpark.scanMetric(df, ExchangesMetric.NAME), "no retries, no redirects");
        System.out.printf(Locale.ROOT, "SCALE %,d s3proxy objects: %.2f s, %d requests = %.2f per file%n",
                OBJECTS, took / 1e9, requests, requests / (double) OBJECTS);
    }

    @Test
    void aPrefixIsListedOnceOnTheDriverAndEachHeaderCostsOneRequest() {
        Dataset<Row> df = spark.read().format("safetensors").option("level", "file").option("ioThreads", "16")
                .load("s3a://" + BUCKET + "/models/");
        List<Row> rows = df.collectAsList();
        assertEquals(OBJECTS, rows.size());
        rows.forEach(r -> assertNull(r.getAs("error_code"), () -> r.getAs("error")));
        assertEquals(OBJECTS, LocalSpark.scanMetric(df, RequestsMetric.NAME), "one request per file");
    }

    @Test
    void aNestedPrefixGivesTheVerdictsTheCommandGives() {
        java.util.Map<String, String> recursive = verdicts(spark.read().format("safetensors").option("level", "file")
                .option("recursiveFileLookup", "true").load("s3a://" + BUCKET + "/mixed/"));
        assertEquals(java.util.Map.of("s3://checkpoints/mixed/a.safetensors", "valid",
                "s3://checkpoints/mixed/nested/b.safetensors", "valid",
                "s3://checkpoints/mixed/broken.safetensors", "HEADER_TOO_LARGE"), recursive);
        java.util.Map<String, String> oneLevel = verdicts(spark.read().format("safetensors").option("level", "file")
                .load("s3://" + BUCKET + "/mixed/"));
        assertEquals(java.util.Set.of("s3://checkpoints/mixed/a.safetensors",
                "s3://checkpoints/mixed/broken.safetensors"), oneLevel.keySet());
        java.util.Map<String, String> globbed = verdicts(spark.read().format("safetensors").option("level", "file")
                .option("recursiveFileLookup", "true").option("pathGlobFilter", "*.txt")
                .load("s3a://" + BUCKET + "/mixed/"));
        assertEquals(java.util.Set.of("s3://checkpoints/mixed/notes.txt"), globbed.keySet());
    }

    private static java.util.Map<String, String> verdicts(Dataset<Row> df) {
        java.util.Map<String, String> m = new java.util.TreeMap<>();
        for (Row r : df.collectAsList()) {
            String code = r.getAs("error_code");
            m.put(r.getAs("path"), code == null ? "valid" : code);
        }
        return m;
    }

    @Test
    void anInventoryOfLocationsNeedsNoListing() {
        long listings = FileListing.LISTINGS.get();
        Dataset<String> inventory = spark.createDataset(locations.subList(0, 100), Encoders.STRING());
        List<Row> rows = SafetensorsSpark.readHeaders(spark, inventory).where("dtype = 'F32'").collectAsList();
        assertEquals(100, rows.size());
        assertEquals(listings, FileListing.LISTINGS.get(), "no listing");
    }
}
