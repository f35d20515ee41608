package dev.safetensors.spark;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.sum;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The example of docs/spark.md, run: a tensor catalogue with checksums written as Parquet, the failing files
 * listed, and parameters counted per dtype. It lives here rather than in {@code examples/} so that the examples
 * module does not depend on Spark.
 */
class CatalogueExampleTest {
    private static SparkSession spark;
    @TempDir
    static Path dir;

    @BeforeAll
    static void start() throws IOException {
        spark = LocalSpark.start();
        Path models = Files.createDirectories(dir.resolve("models"));
        for (int i = 0; i < 4; i++) {
            Fixtures.write(models.resolve("part-" + i + ".safetensors"), i);
        }
        Fixtures.writeBroken(models.resolve("part-9.safetensors"));
    }


    @Test
    void buildsACatalogue() {
        String models = dir.resolve("models").toString();
        String catalogue = dir.resolve("catalogue").toString();

        // --- the example in docs/spark.md, "Java" ---
        Dataset<Row> tensors = spark.read().format("safetensors")
                .option("checksum", "sha256")
                .option("ioThreads", "16")
                .load(models);
        tensors.where(col("error_code").isNull())
                .select("path", "version", "tensor", "dtype", "shape", "begin", "end", "sha256")
                .write().mode(SaveMode.Overwrite).parquet(catalogue);
        List<Row> failures = tensors.where(col("error_code").isNotNull())
                .select("path", "error_code", "error").collectAsList();
        List<Row> perDtype = tensors.where(col("error_code").isNull()).groupBy("dtype")
                .agg(count("*").as("tensors"), sum("element_count").as("parameters"))
                .orderBy("dtype").collectAsList();
        // --- end of the example ---

        assertEquals(4 * Fixtures.TENSORS_PER_FILE, spark.read().parquet(catalogue).count());
        assertEquals(1, failures.size());
        assertEquals("HEADER_START", failures.get(0).getString(1));
        assertEquals(List.of("BF16", "F32", "I64"), perDtype.stream().map(r -> r.getString(0)).toList());
        assertEquals(4 * 32L, perDtype.get(1).getLong(2));
    }
}
