package dev.safetensors.spark;

import dev.safetensors.fixtures.ChildJvm;
import dev.safetensors.fixtures.GcLog;
import dev.safetensors.fixtures.GeneratedBucket;
import dev.safetensors.fixtures.GeneratedS3;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Spark over the generated bucket of {@code MillionObjectsTest} ({@link GeneratedBucket} behind {@link GeneratedS3},
 * the real S3 backend talking to it): a driver whose heap is bounded ({@code -Xmx}, a child JVM running
 * {@link MillionObjectsDriver} with the shared {@link LocalSpark} settings) lists the prefix, plans partitions by
 * count, and the executors read every header; the verdicts are exactly the bucket's. It prints the figures of
 * benchmarks/README.md ("A million objects") and asserts counts and the heap bound, never a time.
 */
@Tag("slow")
class MillionObjectsScanTest {
    private static final long OBJECTS = Long.getLong("million.objects", 1_000_000);
    private static final String HEAP = System.getProperty("million.driverHeap", "512m");
    private static final String MODE = System.getProperty("million.spark", "read");

    @TempDir
    Path dir;

    @Test
    void aMillionObjectsArePlannedAndReadUnderABoundedDriverHeap() throws Exception {
        GeneratedBucket bucket = new GeneratedBucket(OBJECTS);
        GeneratedBucket.Expected expected = bucket.expected();
        Path gcLog = dir.resolve("gc.log");
        Path stderr = dir.resolve("stderr.txt");
        try (GeneratedS3 s3 = new GeneratedS3("generated", bucket)) {
            List<String> options = new ArrayList<>();
            options.add("-Xmx" + HEAP);
            // a Spark driver is no short-lived JVM: C2 back, as the slow tier's JVMs have it
            options.add("-XX:TieredStopAtLevel=4");
            options.add("-Xlog:gc:file=" + gcLog);
            for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                if (a.startsWith("--add-opens") || a.startsWith("-Djdk.reflect") || a.startsWith("-Dio.netty")) {
                    options.add(a);
                }
            }
            for (String p : List.of("aws.region", "aws.accessKeyId", "aws.secretAccessKey", "aws.configFile",
                    "aws.sharedCredentialsFile", "aws.disableEc2Metadata")) {
                if (System.getProperty(p) != null) {
                    options.add("-D" + p + "=" + System.getProperty(p));
                }
            }
            options.add("-Daws.endpointUrl=" + s3.endpoint());
            options.add("-Dspark.ui.enabled=false");
            options.addAll(List.of("-cp", ChildJvm.testClassPath(MillionObjectsDriver.class),
                    MillionObjectsDriver.class.getName(), "s3://generated/", "1000", MODE));
            ProcessBuilder builder = new ProcessBuilder(ChildJvm.command(options.toArray(String[]::new)))
                    .redirectError(stderr.toFile());
            builder.environment().put("AWS_EC2_METADATA_DISABLED", "true");
            builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
            String load = Files.readString(Path.of("/proc/loadavg")).trim();
            long start = System.nanoTime();
            Process p = builder.start();
            Map<String, Long> verdicts = new HashMap<>();
            Map<String, String> driver = new HashMap<>();
            Map<String, String> read = new HashMap<>();
            Duration childCpu = Duration.ZERO;
            try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.startsWith("VERDICT ")) {
                        String[] f = line.split(" ");
                        verdicts.put(f[1], Long.parseLong(f[2]));
                    } else if (line.startsWith("DRIVER ")) {
                        fields(line, driver);
                    } else if (line.startsWith("READ ")) {
                        fields(line, read);
                    } else if (line.startsWith("DONE")) {
                        childCpu = p.info().totalCpuDuration().orElse(Duration.ZERO);
                    }
                }
                assertTrue(p.waitFor(2, TimeUnit.HOURS), "the child ends");
            } finally {
                p.destroyForcibly();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            String err = Files.readString(stderr, StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), () -> err.lines().skip(Math.max(0, err.lines().count() - 30))
                    .reduce("", (a, b) -> a + "\n" + b));
            GcLog heap = GcLog.read(gcLog);
            double perMillion = 1e6 / OBJECTS;
            System.out.printf(Locale.ROOT, "MILLION spark level=file over %,d objects, driver -Xmx%s (local[2,2]):"
                            + " %s; %.1f s wall, child CPU %.1f s = %.0f objects per CPU-second; verdicts %s;"
                            + " heap max after GC %.1f MiB, after a full collection %.1f MiB over %d; per million"
                            + " objects: %.0f listing requests, %.0f GETs, %.1f MB of listing"
                            + " pages, %.1f MB of object bytes; load average"
                            + " at start %s, at end %s%n",
                    OBJECTS, HEAP, driver, seconds, childCpu.toNanos() / 1e9,
                    OBJECTS / (childCpu.toNanos() / 1e9), verdicts, heap.maxAfterAny() / 1048576.0,
                    heap.maxAfterFull() / 1048576.0, heap.full(),
                    s3.listRequests() * perMillion, s3.getRequests() * perMillion, s3.listingBytes() * perMillion / 1e6,
                    s3.objectBytes() * perMillion / 1e6,
                    load, Files.readString(Path.of("/proc/loadavg")).trim());
            long files = expected.files();
            assertEquals(files, Long.parseLong(driver.get("files")), "every shard and file planned, once");
            assertTrue(Long.parseLong(driver.get("largest")) <= 1000, "at most filesPerPartition files a task");
            assertTrue(Long.parseLong(driver.get("partitions")) <= (files + 996) / 997, "every partition but the"
                    + " last holds over 996 files: a group (an index's shards) has at most 4");
            if (MODE.equals("read")) {
                long rows = verdicts.values().stream().mapToLong(Long::longValue).sum();
                assertEquals(files + expected.disagreeing(), rows, "a row per file, and one per index that"
                        + " disagrees with its valid shards: " + verdicts);
                assertEquals(expected.invalidFiles() + expected.disagreeing(), rows - verdicts.getOrDefault("valid",
                        0L), verdicts::toString);
                assertEquals(OBJECTS, Long.parseLong(read.get("files")) + expected.checkpoints(), "the files metric");
            }
        }
    }

    private static void fields(String line, Map<String, String> into) {
        for (String f : line.substring(line.indexOf(' ') + 1).split(" ")) {
            int eq = f.indexOf('=');
            into.put(f.substring(0, eq), f.substring(eq + 1));
        }
    }
}
