package dev.safetensors.spark;

import dev.safetensors.azure.testing.Azurite;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Azure prefixes ({@code az://CONTAINER/PREFIX/}, {@code abfss://…/PATH/}) in a real Azurite, listed once on the
 * driver through the library's Azure backend (List Blobs), then read one request per file: the verdicts the command
 * gives for the same blobs. The backend is configured by the {@code AZURE_STORAGE_*} system properties; the Azurite is
 * the JVM's shared one ({@link Azurite#shared()}), since the source's backend keeps the first endpoint it saw.
 */
class AzurePrefixTest {
    private static final String ABFSS = "abfss://checkpoints@" + Azurite.ACCOUNT + ".dfs.core.windows.net";
    private static Azurite azurite;
    private static SparkSession spark;

    @BeforeAll
    static void start() throws Exception {
        azurite = Azurite.shared();
        azurite.configureSystemProperties();
        byte[] checkpoint = Fixtures.bytes(42);
        azurite.put("checkpoints", "mixed/a.safetensors", checkpoint);
        azurite.put("checkpoints", "mixed/nested/b.safetensors", checkpoint);
        azurite.put("checkpoints", "mixed/broken.safetensors", "not a safetensors file at all".getBytes());
        azurite.put("checkpoints", "mixed/notes.txt", "skipped".getBytes());
        spark = LocalSpark.start();
    }

    @AfterAll
    static void stop() {
        Azurite.clearSystemProperties();
    }

    private static Map<String, String> verdicts(Dataset<Row> df) {
        Map<String, String> m = new TreeMap<>();
        for (Row r : df.collectAsList()) {
            String code = r.getAs("error_code");
            m.put(r.getAs("path"), code == null ? "valid" : code);
        }
        return m;
    }

    @Test
    void aNestedPrefixIsListedOnceAndGivesTheCommandsVerdicts() {
        long listings = FileListing.LISTINGS.get();
        Dataset<Row> df = spark.read().format("safetensors").option("level", "file")
                .option("recursiveFileLookup", "true").load("az://checkpoints/mixed/");
        assertEquals(Map.of("az://checkpoints/mixed/a.safetensors", "valid",
                "az://checkpoints/mixed/nested/b.safetensors", "valid",
                "az://checkpoints/mixed/broken.safetensors", "HEADER_TOO_LARGE"), verdicts(df));
        assertEquals(3, LocalSpark.scanMetric(df, RequestsMetric.NAME), "one request per file");
        assertEquals(1, FileListing.LISTINGS.get() - listings, "listed once, on the driver");
    }

    @Test
    void oneLevelAndGlobsApplyToAbfssPrefixes() {
        assertEquals(Set.of(ABFSS + "/mixed/a.safetensors", ABFSS + "/mixed/broken.safetensors"),
                verdicts(spark.read().format("safetensors").option("level", "file").load(ABFSS + "/mixed/"))
                        .keySet());
        assertEquals(Set.of(ABFSS + "/mixed/notes.txt"), verdicts(spark.read().format("safetensors")
                .option("level", "file").option("recursiveFileLookup", "true").option("pathGlobFilter", "*.txt")
                .load(ABFSS + "/mixed/")).keySet());
    }
}
