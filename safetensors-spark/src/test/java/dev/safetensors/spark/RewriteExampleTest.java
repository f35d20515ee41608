package dev.safetensors.spark;

import dev.safetensors.DType;
import dev.safetensors.TensorInfo;
import dev.safetensors.core.Checkpoint;
import dev.safetensors.core.SafetensorsFile;
import dev.safetensors.core.ShardedWriter;
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
import java.util.stream.Stream;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.not;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rewrite example of docs/spark.md ("Writing", Java), run as written: a sharded checkpoint loaded through its
 * index (expanded by default), pruned of {@code lm_head}, and written back sharded with {@code metadata.format}.
 */
class RewriteExampleTest {
    private static SparkSession spark;
    @TempDir
    static Path dir;
    private static Path llama;

    @BeforeAll
    static void start() throws IOException {
        spark = LocalSpark.start();
        llama = Files.createDirectories(dir.resolve("models/llama"));
        ShardedWriter w = ShardedWriter.create(600);
        for (int i = 0; i < 4; i++) {
            w.tensor("model.layers." + i + ".weight", DType.F32, new long[]{64}, ramp(256, i));
        }
        w.tensor("lm_head.weight", DType.BF16, new long[]{8, 8}, ramp(128, 9));
        assertTrue(w.writeTo(llama).size() > 2, "the fixture has several shards");
    }

    private static byte[] ramp(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed * 31 + i * 7);
        }
        return b;
    }

    @Test
    void theDocsRewriteExampleRunsAndKeepsEveryOtherTensorByteForByte() throws IOException {
        String index = llama.resolve("model.safetensors.index.json").toString();
        String pruned = dir.resolve("models/llama-pruned").toString();

        // --- the example in docs/spark.md, "Writing", Java (its paths replaced by the test's) ---
        spark.read().format("safetensors").option("data", "binary").load(index)
                .where(not(col("tensor").startsWith("lm_head")))
                .select("tensor", "dtype", "shape", "chunk", "data")
                .write().format("safetensors")
                .option("layout", "checkpoint").option("maxShardSize", "2GB").option("metadata.format", "pt")
                .mode(SaveMode.Overwrite).save(pruned);
        // --- end of the example ---

        Path out = Path.of(pruned);
        try (Checkpoint original = Checkpoint.open(Path.of(index)); Checkpoint copy = Checkpoint.open(out)) {
            assertEquals(original.tensors().size() - 1, copy.tensors().size());
            for (TensorInfo t : copy.tensors()) {
                TensorInfo u = original.tensor(t.name());
                assertEquals(u.dtype(), t.dtype(), t.name());
                assertArrayEquals(u.shape(), t.shape(), t.name());
                assertEquals(original.readBytes(t.name()), copy.readBytes(t.name()), t.name());
            }
            assertTrue(copy.tensors().stream().noneMatch(t -> t.name().startsWith("lm_head")));
        }
        List<Path> files;
        try (Stream<Path> s = Files.list(out)) {
            files = s.toList();
        }
        assertEquals(List.of(out.resolve("model.safetensors")), files, "under 2GB: one file, no index");
        try (SafetensorsFile f = SafetensorsFile.open(files.get(0))) {
            assertEquals(java.util.Map.of("format", "pt"), f.header().metadata());
        }
    }

    @Test
    void anIndexNamedExplicitlyIsReadAsItsCheckpointByDefault() {
        String index = llama.resolve("model.safetensors.index.json").toString();
        List<Row> rows = spark.read().format("safetensors").load(index).collectAsList();
        assertEquals(5, rows.size(), rows.toString());
        rows.forEach(r -> assertNull(r.getAs("error_code"), () -> r.getAs("error")));
        assertTrue(rows.stream().noneMatch(r -> ((String) r.getAs("path")).endsWith(".json")), rows.toString());
    }

    @Test
    void anIndexNamedExplicitlyWithExpansionTurnedOffIsRefusedNamingTheOption() {
        String index = llama.resolve("model.safetensors.index.json").toString();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> spark.read()
                .format("safetensors").option("expandIndex", "false").load(index).collectAsList());
        assertTrue(e.getMessage().contains("expandIndex") && e.getMessage().contains("model.safetensors.index.json"),
                e.getMessage());
    }
}
