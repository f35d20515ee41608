package dev.safetensors.spark;

import dev.safetensors.azure.testing.Azurite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The store write into {@code az://CONTAINER/PREFIX/} in the JVM's shared Azurite (Put Blob or staged blocks and a
 * conditional Put Block List per file, the entry point last), and once into the same container as
 * {@code abfss://CONTAINER@ACCOUNT.dfs.core.windows.net/PREFIX/}. The executors' Azure backend is configured by the
 * {@code AZURE_STORAGE_*} system properties, as on a cluster by the environment. What the container holds is read
 * with Azurite's own client.
 */
class AzureStoreWriteTest extends AbstractStoreWriteTest {
    private static final String CONTAINER = "spark-writes";
    private static Azurite azurite;

    @BeforeAll
    static void configure() throws IOException {
        azurite = Azurite.shared();
        azurite.configureSystemProperties();
        azurite.put(CONTAINER, "elsewhere/kept.txt", "not under any output".getBytes(StandardCharsets.UTF_8));
    }

    @AfterAll
    static void clear() {
        Azurite.clearSystemProperties();
    }

    @Override
    protected String output(String name) {
        return "az://" + CONTAINER + "/" + name + "/";
    }

    /** What Azurite holds under the prefix, for either form of the location. */
    @Override
    protected Set<String> names(String output) {
        String prefix = output.substring(output.indexOf('/', output.indexOf("://") + 3) + 1);
        Set<String> names = new TreeSet<>();
        azurite.client().getBlobContainerClient(CONTAINER).listBlobs().forEach(b -> {
            if (b.getName().startsWith(prefix)) {
                names.add(b.getName().substring(prefix.length()));
            }
        });
        return names;
    }

    @Test
    void anAbfssLocationOfTheContainerIsWrittenAlike() throws IOException {
        String output = "abfss://" + CONTAINER + "@" + Azurite.ACCOUNT + ".dfs.core.windows.net/abfss-samples/";
        List<org.apache.spark.sql.Row> rows = new java.util.ArrayList<>();
        for (int r = 0; r < 4; r++) {
            rows.add(org.apache.spark.sql.RowFactory.create((long) r));
        }
        spark.createDataFrame(rows, new org.apache.spark.sql.types.StructType()
                        .add("label", org.apache.spark.sql.types.DataTypes.LongType))
                .repartition(1).write().format("safetensors").option("layout", "samples").save(output);
        Set<String> names = names(output);
        assertEquals(2, names.size(), names.toString());
        assertEquals(true, names.contains("manifest.json"), names.toString());
        assertEquals(1, spark.read().format("safetensors").load(output).where("tensor = 'label'").count());
        assertEquals(Set.of("kept.txt"), names("az://" + CONTAINER + "/elsewhere/"));
    }
}
