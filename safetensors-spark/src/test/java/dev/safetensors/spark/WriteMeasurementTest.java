package dev.safetensors.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.safetensors.core.Checkpoint;
import dev.safetensors.TensorInfo;
import dev.safetensors.core.SafetensorsFile;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The figures of benchmarks/README.md's Spark write section: the samples and checkpoint layouts beside Spark's own
 * Parquet writer on the same rows in the same run (best of {@value #ROUNDS}, alternating), and every file written
 * read back by the library and checked against the rows. Slow tier: it writes over 4 GB.
 */
@Tag("slow")
class WriteMeasurementTest {
    private static final int ROUNDS = 2;
    private static final int SAMPLE_ROWS = 10_000;
    private static final int WIDTH = 1024;
    private static final int TENSORS = 128;
    private static final int CHUNKS = 4;
    private static final int CHUNK_BYTES = 4 << 20;
    private static SparkSession spark;
    @TempDir
    static Path dir;

    @BeforeAll
    static void start() {
        spark = LocalSpark.start();
    }

    /** Integers below 2^24, so the SQL expression and this give the same float exactly. */
    private static float value(long row, int j) {
        return (float) (row + j * 10_000L);
    }

    @Test
    void samplesOfTenThousandVectors() throws IOException {
        Dataset<Row> rows = spark.range(0, SAMPLE_ROWS, 1, 2).select(functions.col("id"),
                functions.expr("transform(sequence(0, " + (WIDTH - 1) + "), j -> CAST(id + j * 10000 AS FLOAT))")
                        .as("x")).cache();
        assertEquals(SAMPLE_ROWS, rows.count());
        double ours = Double.MAX_VALUE;
        double parquet = Double.MAX_VALUE;
        for (int round = 0; round < ROUNDS; round++) {
            Path out = dir.resolve("samples-" + round);
            long t0 = System.nanoTime();
            rows.write().format("safetensors").option("layout", "samples").option("batchSize", "1000")
                    .save(out.toString());
            ours = Math.min(ours, (System.nanoTime() - t0) / 1e9);
            long t1 = System.nanoTime();
            rows.write().parquet(dir.resolve("parquet-samples-" + round).toString());
            parquet = Math.min(parquet, (System.nanoTime() - t1) / 1e9);
        }
        long checked = checkSamples(dir.resolve("samples-0"));
        assertEquals(SAMPLE_ROWS, checked);
        report("samples: 10,000 rows of 1,024 floats (40 MB)", ours, parquet, size(dir.resolve("samples-0")),
                size(dir.resolve("parquet-samples-0")));
        rows.unpersist();
    }

    private static long checkSamples(Path out) throws IOException {
        JsonNode manifest = new ObjectMapper().readTree(out.resolve("manifest.json").toFile());
        long rows = 0;
        for (JsonNode f : manifest.get("files")) {
            try (SafetensorsFile file = SafetensorsFile.open(out.resolve(f.get("file").asText()))) {
                float[] x = file.readFloat32("x");
                ByteBuffer ids = file.readBytes("id").order(ByteOrder.LITTLE_ENDIAN);
                for (int r = 0; r < f.get("rows").asInt(); r++, rows++) {
                    long id = ids.getLong(r * 8);
                    for (int j = 0; j < WIDTH; j++) {
                        if (x[r * WIDTH + j] != value(id, j)) {
                            throw new AssertionError("row " + id + ", element " + j + ": " + x[r * WIDTH + j]);
                        }
                    }
                }
            }
        }
        return rows;
    }

    /** The bytes of chunk {@code chunk} of tensor {@code tensor}: a cheap pattern no two chunks share. */
    static byte[] chunkBytes(int tensor, int chunk) {
        ByteBuffer b = ByteBuffer.allocate(CHUNK_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        long x = tensor * 1_000_003L + chunk;
        while (b.hasRemaining()) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            b.putLong(x);
        }
        return b.array();
    }

    /** Generates the 2 GiB checkpoint's rows in the tasks, so neither writer is measured reading a cache. */
    private record ChunkRow() implements MapFunction<Long, Row> {
        @Override
        public Row call(Long i) {
            int tensor = (int) (i / CHUNKS);
            int chunk = (int) (i % CHUNKS);
            long elements = (long) CHUNKS * CHUNK_BYTES / 2;
            return RowFactory.create("layers." + tensor + ".weight", "BF16", new long[]{elements / 4096, 4096},
                    chunk, chunkBytes(tensor, chunk));
        }
    }

    @Test
    void checkpointOfTwoGibibytes() throws IOException {
        StructType schema = new StructType().add("tensor", DataTypes.StringType).add("dtype", DataTypes.StringType)
                .add("shape", DataTypes.createArrayType(DataTypes.LongType, false))
                .add("chunk", DataTypes.IntegerType).add("data", DataTypes.BinaryType);
        // two partitions of 256 rows each: every tensor's four chunks fall in one task, in order
        Dataset<Row> rows = spark.range(0, (long) TENSORS * CHUNKS, 1, 2)
                .map(new ChunkRow(), Encoders.row(schema));
        double ours = Double.MAX_VALUE;
        double parquet = Double.MAX_VALUE;
        for (int round = 0; round < ROUNDS; round++) {
            Path out = dir.resolve("checkpoint-" + round);
            long t0 = System.nanoTime();
            rows.write().format("safetensors").option("layout", "checkpoint").option("maxShardSize", "500MB")
                    .save(out.toString());
            ours = Math.min(ours, (System.nanoTime() - t0) / 1e9);
            long t1 = System.nanoTime();
            // Parquet checks a page's size only every 100 records by default: 400 MB pages of 4 MiB values, which
            // exhaust the heap; checking after every record keeps its pages at the 1 MiB default
            rows.write().option("parquet.page.size.row.check.min", "1")
                    .option("parquet.page.size.row.check.max", "1")
                    .parquet(dir.resolve("parquet-checkpoint-" + round).toString());
            parquet = Math.min(parquet, (System.nanoTime() - t1) / 1e9);
            if (round > 0) {
                Staging.deleteTree(dir.resolve("checkpoint-" + round));
                Staging.deleteTree(dir.resolve("parquet-checkpoint-" + round));
            }
        }
        Path out = dir.resolve("checkpoint-0");
        try (Checkpoint c = Checkpoint.open(out.resolve("model.safetensors.index.json"))) {
            assertEquals(TENSORS, c.tensors().size());
            for (TensorInfo t : c.tensors()) {
                int tensor = Integer.parseInt(t.name().split("\\.")[1]);
                ByteBuffer bytes = c.readBytes(t.name());
                byte[] chunk = new byte[CHUNK_BYTES];
                for (int k = 0; k < CHUNKS; k++) {
                    bytes.get(chunk);
                    assertArrayEquals(chunkBytes(tensor, k), chunk, t.name() + " chunk " + k);
                }
            }
        }
        report("checkpoint: 128 BF16 tensors of 16 MiB (2 GiB), 500MB shards", ours, parquet, size(out),
                size(dir.resolve("parquet-checkpoint-0")));
    }

    private static long size(Path folder) throws IOException {
        try (Stream<Path> s = Files.walk(folder)) {
            return s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    private static void report(String what, double ours, double parquet, long oursBytes, long parquetBytes) {
        System.out.printf(Locale.ROOT, "MEASURED %s on local[2]: safetensors %.2f s (%d bytes), Parquet %.2f s"
                + " (%d bytes), safetensors/Parquet time %.2f%n", what, ours, oursBytes, parquet, parquetBytes,
                ours / parquet);
    }
}
