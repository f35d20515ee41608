package dev.safetensors.spark;

import dev.safetensors.Limits;
import dev.safetensors.core.Safetensors;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.util.LongAccumulator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * 10,000 local checkpoints of 256 KiB each (sparse, so they cost the disk almost nothing): listed once per action
 * whatever Spark plans, packed into 10 partitions, one request and one prefix read per header; and, in the same run,
 * the same files through a whole-file reader (every file read fully into memory, as the peer Scala source does) as
 * the baseline. The timings are printed, not asserted; the byte and request counts are exact.
 *
 * <p>Slow tier ({@code -Pslow}): 10,000 files, and 2.5 GiB read whole for the baseline it prints.
 */
@Tag("slow")
class TenThousandFilesTest {
    private static final int FILES = 10_000;
    private static final int ELEMENTS = 64 * 1024;
    private static SparkSession spark;
    @TempDir
    static Path dir;
    private static List<String> paths;
    private static long fileSize;

    @BeforeAll
    static void start() throws IOException {
        spark = LocalSpark.start();
        byte[] header = header();
        fileSize = header.length + 4L * ELEMENTS;
        paths = new ArrayList<>();
        for (int i = 0; i < FILES; i++) {
            Path file = dir.resolve(String.format("shard-%05d.safetensors", i));
            try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
                f.write(header);
                f.setLength(fileSize);
            }
            paths.add(file.toString());
        }
    }

    /** The prefix of a file holding one F32 tensor of {@value #ELEMENTS} zeros. */
    private static byte[] header() {
        String json = "{\"w\":{\"dtype\":\"F32\",\"shape\":[" + ELEMENTS + "],\"data_offsets\":[0," + 4 * ELEMENTS + "]}}";
        json = json + " ".repeat((8 - json.length() % 8) % 8);
        byte[] j = json.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(8 + j.length).order(ByteOrder.LITTLE_ENDIAN).putLong(j.length).put(j).array();
    }


    @Test
    void tenThousandFilesAreListedOnceAndReadWithOneRequestEach() {
        spark.read().format("safetensors").load(paths.subList(0, 100).toArray(String[]::new)).collectAsList();

        long listingsBefore = FileListing.LISTINGS.get();
        long start = System.nanoTime();
        Dataset<Row> df = spark.read().format("safetensors").option("filesPerPartition", "1000")
                .load(dir.toString()).select("path", "tensor", "dtype", "end");
        List<Row> rows = df.collectAsList();
        long ours = System.nanoTime() - start;

        assertEquals(FILES, rows.size());
        assertEquals(1, FileListing.LISTINGS.get() - listingsBefore, "one listing for the action");
        assertEquals(10, partitions(df));
        assertEquals(FILES, LocalSpark.scanMetric(df, FilesMetric.NAME));
        assertEquals(FILES, LocalSpark.scanMetric(df, RequestsMetric.NAME), "one request per header");
        long prefix = Math.min(fileSize, Limits.STRICT.prefetchBytes());
        assertEquals(FILES * prefix, LocalSpark.scanMetric(df, BytesReadMetric.NAME), "one prefix read per file");

        LongAccumulator bytes = spark.sparkContext().longAccumulator("whole-file bytes");
        start = System.nanoTime();
        long tensors = JavaSparkContext.fromSparkContext(spark.sparkContext()).parallelize(paths, 10)
                .map(p -> wholeFileTensorCount(p, bytes)).reduce(Long::sum);
        long baseline = System.nanoTime() - start;
        assertEquals(FILES, tensors);
        assertEquals(FILES * fileSize, bytes.value().longValue(), "the baseline reads every byte");

        System.out.printf(Locale.ROOT, "SCALE %,d local files (%,d bytes each), %d partitions:%n"
                        + "  safetensors source: %,d rows in %.2f s = %,.0f rows/s, %,d requests, %,d bytes read%n"
                        + "  whole-file baseline: %,d files in %.2f s = %,.0f files/s, %,d bytes read%n",
                FILES, fileSize, partitions(df), rows.size(), ours / 1e9, rows.size() / (ours / 1e9),
                LocalSpark.scanMetric(df, RequestsMetric.NAME), LocalSpark.scanMetric(df, BytesReadMetric.NAME),
                FILES, baseline / 1e9, FILES / (baseline / 1e9), bytes.value());
    }

    /** The peer approach: the whole file in the heap, then the header parsed from it. */
    private static long wholeFileTensorCount(String path, LongAccumulator bytes) throws IOException {
        byte[] whole = Files.readAllBytes(Path.of(path));
        bytes.add(whole.length);
        return Safetensors.readHeader(path, whole, Limits.STRICT).tensors().size();
    }

    private static int partitions(Dataset<Row> executed) {
        scala.collection.Iterator<SparkPlan> leaves = executed.queryExecution().executedPlan().collectLeaves()
                .iterator();
        while (leaves.hasNext()) {
            if (leaves.next() instanceof BatchScanExec scan) {
                return scan.inputRDD().getNumPartitions();
            }
        }
        throw new AssertionError("no batch scan in the plan");
    }
}
