package dev.safetensors.spark;

import dev.safetensors.azure.AzureClientOptions;
import dev.safetensors.azure.testing.Azurite;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Blobs in a real Azurite on loopback, read through the library's Azure backend as {@code az://} and Hadoop-style
 * {@code abfss://} locations: one request per file, and each row carries the blob's ETag as its version. The backend
 * is configured by the {@code AZURE_STORAGE_*} settings, here as system properties of the same names.
 */
class AzureBlobsTest {
    private static final int BLOBS = 40;
    private static Azurite azurite;
    private static SparkSession spark;
    private static List<String> locations;

    @BeforeAll
    static void start() throws Exception {
        azurite = Azurite.shared();
        System.setProperty(AzureClientOptions.ACCOUNT, Azurite.ACCOUNT);
        System.setProperty(AzureClientOptions.KEY, Azurite.KEY);
        System.setProperty(AzureClientOptions.BLOB_ENDPOINT, azurite.endpoint());
        byte[] checkpoint = Fixtures.bytes(42);
        locations = new ArrayList<>();
        for (int i = 0; i < BLOBS; i++) {
            String blob = String.format("models/m%04d.safetensors", i);
            azurite.put("checkpoints", blob, checkpoint);
            locations.add(i % 2 == 0 ? "az://checkpoints/" + blob
                    : "abfss://checkpoints@" + Azurite.ACCOUNT + ".dfs.core.windows.net/" + blob);
        }
        spark = LocalSpark.start();
    }

    @AfterAll
    static void stop() {
        System.clearProperty(AzureClientOptions.ACCOUNT);
        System.clearProperty(AzureClientOptions.KEY);
        System.clearProperty(AzureClientOptions.BLOB_ENDPOINT);
    }

    @Test
    void eachHeaderCostsOneRequest() {
        Dataset<Row> df = spark.read().format("safetensors").option("level", "file").option("ioThreads", "8")
                .load(locations.toArray(String[]::new));
        List<Row> rows = df.collectAsList();
        assertEquals(BLOBS, rows.size());
        rows.forEach(r -> {
            assertNull(r.getAs("error_code"), () -> r.getAs("error"));
            assertNotNull(r.getAs("version"), "the ETag");
            assertEquals(1L, (long) r.getAs("requests"));
        });
        assertTrue(rows.stream().anyMatch(r -> ((String) r.getAs("path")).startsWith("abfss://")));
        assertEquals(BLOBS, LocalSpark.scanMetric(df, FilesMetric.NAME));
        assertEquals(BLOBS, LocalSpark.scanMetric(df, RequestsMetric.NAME), "one request per file");
        assertEquals(BLOBS, LocalSpark.scanMetric(df, ExchangesMetric.NAME), "no retries");
    }

    @Test
    void aMissingBlobIsARowWithItsCode() {
        List<Row> rows = spark.read().format("safetensors").option("level", "file")
                .load("az://checkpoints/absent.safetensors").collectAsList();
        assertEquals(1, rows.size());
        assertEquals("NOT_FOUND", rows.get(0).getAs("error_code"));
    }
}
