package dev.safetensors.spark;

import dev.safetensors.s3.S3ClientOptions;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * 1,000 objects in s3proxy (a real S3 API server in this JVM, on loopback), read through the library's S3 backend
 * as {@code s3://} and Hadoop-style {@code s3a://} locations: the {@code requests} metric equals the file count,
 * and each row carries the object's ETag as its version.
 *
 * <p>Slow tier ({@code -Pslow}): 1,000 PUTs to s3proxy before the first assertion.
 */
@Tag("slow")
class S3ObjectsTest {
    private static final String BUCKET = "checkpoints";
    private static final int OBJECTS = 1000;
    private static SparkSession spark;
    private static BlobStoreContext store;
    private static S3Proxy proxy;
    private static List<String> locations;

    @BeforeAll
    static void start() throws Exception {
        store = ContextBuilder.newBuilder("transient").credentials("test-access-key", "test-secret-key")
                .build(BlobStoreContext.class);
        proxy = S3Proxy.builder().blobStore(store.getBlobStore()).endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, "test-access-key", "test-secret-key").build();
        proxy.start();
        while (!proxy.getState().equals("STARTED")) {
            Thread.onSpinWait();
        }
        URI endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
        // the backend's ServiceLoader-built client follows the SDK's configuration chain, as on a cluster
        System.setProperty("aws.endpointUrl", endpoint.toString());
        byte[] checkpoint = Fixtures.bytes(42);
        locations = new ArrayList<>();
        try (S3Client client = S3ClientOptions.DEFAULT.withEndpoint(endpoint).withPathStyle(true).clientBuilder()
                .region(Region.US_EAST_1).credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create("test-access-key", "test-secret-key"))).build()) {
            client.createBucket(b -> b.bucket(BUCKET));
            for (int i = 0; i < OBJECTS; i++) {
                String key = String.format("models/m%04d.safetensors", i);
                client.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(checkpoint));
                locations.add((i % 2 == 0 ? "s3://" : "s3a://") + BUCKET + "/" + key);
            }
            client.putObject(b -> b.bucket(BUCKET).key("mixed/a.safetensors"), RequestBody.fromBytes(checkpoint));
            client.putObject(b -> b.bucket(BUCKET).key("mixed/nested/b.safetensors"),
                    RequestBody.fromBytes(checkpoint));
            client.putObject(b -> b.bucket(BUCKET).key("mixed/broken.safetensors"),
                    RequestBody.fromString("not a safetensors file at all"));
            client.putObject(b -> b.bucket(BUCKET).key("mixed/notes.txt"), RequestBody.fromString("skipped"));
        }
        spark = LocalSpark.start();
    }

    @AfterAll
    static void stop() throws Exception {
        proxy.stop();
        store.close();
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
