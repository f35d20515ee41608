package dev.safetensors.spark;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.List;
import java.util.Locale;

import static org.apache.spark.sql.functions.col;

/**
 * The driver of {@link MillionObjectsScanTest}, run in a child JVM whose heap is the bound under test: a recursive
 * {@code level=file} scan of a prefix, its verdicts counted by error code (every header read, unless told to plan
 * only), then the partitions the driver planned (the listing) and the heap they and the plan retain. Prints
 * {@code DRIVER}, {@code VERDICT} and {@code READ} lines for the test to read.
 *
 * <p>Arguments: the prefix, {@code filesPerPartition}, then {@code plan} or {@code read}.
 */
final class MillionObjectsDriver {
    private MillionObjectsDriver() {
    }

    public static void main(String[] args) throws Exception {
        String prefix = args[0];
        String filesPerPartition = args[1];
        boolean read = args[2].equals("read");
        SparkSession spark = LocalSpark.start();
        long baseline = retained();
        Dataset<Row> df = spark.read().format("safetensors").option("level", "file")
                .option("recursiveFileLookup", "true").option("ioThreads", "16")
                .option("filesPerPartition", filesPerPartition).load(prefix);
        Dataset<Row> verdicts = df.groupBy(col("error_code")).count();
        long start = System.nanoTime();
        List<Row> counted = read ? verdicts.collectAsList() : List.of();
        SafetensorsScan scan = scan(verdicts.queryExecution().executedPlan());
        // cached by the scan when the read planned it; planned here, on the driver alone, otherwise
        InputPartition[] partitions = scan.planInputPartitions();
        double seconds = (System.nanoTime() - start) / 1e9;
        long files = 0;
        long encoded = 0;
        int largest = 0;
        for (InputPartition p : partitions) {
            FilePartition f = (FilePartition) p;
            files += f.files();
            encoded += f.encodedBytes();
            largest = Math.max(largest, f.files());
        }
        long held = retained() - baseline;
        System.out.printf(Locale.ROOT, "DRIVER partitions=%d files=%d largest=%d encoded=%d retained=%d"
                        + " seconds=%.1f listings=%d%n", partitions.length, files, largest, encoded, held, seconds,
                FileListing.LISTINGS.get());
        for (Row r : counted) {
            System.out.printf(Locale.ROOT, "VERDICT %s %d%n", r.isNullAt(0) ? "valid" : r.getString(0), r.getLong(1));
        }
        if (read) {
            System.out.printf(Locale.ROOT, "READ requests=%d files=%d%n",
                    LocalSpark.scanMetric(verdicts, RequestsMetric.NAME), LocalSpark.scanMetric(verdicts,
                            FilesMetric.NAME));
        }
        // keeps the partitions reachable through the measurement above
        System.out.println("DONE " + partitions.length);
        spark.stop();
    }

    private static SafetensorsScan scan(SparkPlan plan) {
        scala.collection.Iterator<SparkPlan> leaves = plan.collectLeaves().iterator();
        while (leaves.hasNext()) {
            if (leaves.next() instanceof BatchScanExec b && b.scan() instanceof SafetensorsScan s) {
                return s;
            }
        }
        throw new AssertionError("no safetensors scan in " + plan);
    }

    /** @return the heap in use after two full collections: what is reachable */
    private static long retained() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        System.gc();
        System.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }
}
