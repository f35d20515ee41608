package dev.safetensors.cli;

import dev.safetensors.fixtures.ChildJvm;
import dev.safetensors.fixtures.GcLog;
import dev.safetensors.fixtures.GeneratedBucket;
import dev.safetensors.fixtures.GeneratedS3;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code validate --json --recursive} over a generated bucket ({@link GeneratedBucket} behind {@link GeneratedS3}, a
 * loopback S3 endpoint the real S3 backend talks to): every verdict comes out, exactly as many valid and invalid as
 * the bucket's rules say, and the command's memory does not grow with the bucket. The million-object run is a child
 * JVM under {@code -Xmx256m} whose standard output is read as a stream (lines counted, never held) and whose heap is
 * read from its GC log; it prints the figures of benchmarks/README.md ("A million objects"), asserting only counts
 * and the heap bound, never a time.
 */
class MillionObjectsTest {
    private static final long OBJECTS = Long.getLong("million.objects", 1_000_000);
    private static final int JOBS = Integer.getInteger("million.jobs", 16);

    @TempDir
    Path dir;

    /** Verdicts counted from the JSON lines. */
    private static final class Counts {
        long lines;
        long files;
        long invalidFiles;
        long checkpoints;
        long invalidCheckpoints;
        long other;
        String summary;

        void line(String line) {
            lines++;
            String kind = field(line, "kind");
            boolean valid = "valid".equals(field(line, "status"));
            switch (kind == null ? "" : kind) {
                case "file", "shard" -> {
                    files++;
                    invalidFiles += valid ? 0 : 1;
                }
                case "checkpoint" -> {
                    checkpoints++;
                    invalidCheckpoints += valid ? 0 : 1;
                }
                case "summary" -> summary = line;
                default -> other++;
            }
        }

        void assertMatches(GeneratedBucket.Expected expected) {
            assertEquals(0, other, "no line of another kind");
            assertEquals(expected.files(), files, "file and shard verdicts");
            assertEquals(expected.invalidFiles(), invalidFiles, "invalid files");
            assertEquals(expected.checkpoints(), checkpoints, "checkpoint verdicts");
            assertEquals(expected.invalidCheckpoints(), invalidCheckpoints, "invalid checkpoints");
        }

        private static String field(String line, String name) {
            String key = "\"" + name + "\":\"";
            int at = line.indexOf(key);
            if (at < 0) {
                return null;
            }
            int from = at + key.length();
            return line.substring(from, line.indexOf('"', from));
        }
    }

    /**
     * 2,000 objects in process, the same code path as the million: the verdicts are exactly the bucket's, one
     * listing request per 1,000 keys and one ranged GET per object (index files included), nothing else. Slow tier:
     * the S3 client's first use in a JVM alone takes seconds.
     */
    @Test
    @Tag("slow")
    void everyVerdictOfAGeneratedPrefixComesOutExactly() throws Exception {
        GeneratedBucket bucket = new GeneratedBucket(2_000);
        try (GeneratedS3 s3 = new GeneratedS3("generated", bucket)) {
            Cli.Run run = InProcess.run(InProcess.S3_ENV, "validate", "--json", "--recursive", "--jobs", "8",
                    "--s3-endpoint", s3.endpoint(), "--s3-path-style", "s3://generated/");
            Counts counts = new Counts();
            run.out().lines().forEach(counts::line);
            counts.assertMatches(bucket.expected());
            assertEquals(1, run.exit(), "some objects are invalid on purpose");
            assertEquals(2, s3.listRequests(), "ceil(2,000 / 1,000) pages");
            assertEquals(2_000, s3.getRequests(), "one ranged GET per object, the index files' included");
            assertEquals(0, s3.otherRequests());
        }
    }

    /**
     * A million objects through {@code bin/safetensors}' main class in a child JVM under {@code -Xmx256m}: every
     * verdict read from its standard output as it comes, the heap after each collection read from its GC log.
     */
    @Test
    @Tag("slow")
    void aMillionObjectsStreamEveryVerdictInFlatMemory() throws Exception {
        GeneratedBucket bucket = new GeneratedBucket(OBJECTS);
        GeneratedBucket.Expected expected = bucket.expected();
        Path gcLog = dir.resolve("gc.log");
        Path stderr = dir.resolve("stderr.txt");
        try (GeneratedS3 s3 = new GeneratedS3("generated", bucket)) {
            List<String> command = ChildJvm.command("-Xmx256m", "-Xlog:gc:file=" + gcLog, "-cp",
                    ChildJvm.testClassPath(), Main.class.getName(), "validate", "--json", "--recursive", "--jobs",
                    Integer.toString(JOBS), "--s3-endpoint", s3.endpoint(), "--s3-path-style", "s3://generated/");
            ProcessBuilder builder = new ProcessBuilder(command).redirectError(stderr.toFile());
            builder.environment().putAll(InProcess.S3_ENV);
            String load = Files.readString(Path.of("/proc/loadavg")).trim();
            long serverCpu = ownCpu();
            long start = System.nanoTime();
            Process p = builder.start();
            Counts counts = new Counts();
            Duration childCpu = Duration.ZERO;
            try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    counts.line(line);
                    if (counts.summary != null) {
                        // the last line: the child has done its work, sample its CPU before it exits
                        childCpu = p.info().totalCpuDuration().orElse(Duration.ZERO);
                    }
                }
                assertTrue(p.waitFor(1, TimeUnit.HOURS), "the child ends");
            } finally {
                p.destroyForcibly();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            serverCpu = ownCpu() - serverCpu;
            String err = Files.readString(stderr, StandardCharsets.UTF_8);
            assertEquals(1, p.exitValue(), () -> err.lines().skip(Math.max(0, err.lines().count() - 5))
                    .reduce("", (a, b) -> a + "\n" + b));
            counts.assertMatches(expected);
            GcLog heap = GcLog.read(gcLog);
            double cpu = childCpu.toNanos() / 1e9;
            double perMillion = 1e6 / OBJECTS;
            System.out.printf(Locale.ROOT, "MILLION validate --json --recursive --jobs %d over %,d objects (%,d file"
                            + " verdicts, %,d checkpoint verdicts, %,d lines): %.1f s wall, %.0f objects/s; child CPU"
                            + " %.1f s = %.0f objects per CPU-second; server CPU %.1f s; heap -Xmx256m: max after GC"
                            + " %.1f MiB over %d collections, after a full collection %.1f MiB over %d, committed max"
                            + " %.1f MiB; per million objects: %.0f listing requests, %.0f GETs, %.1f MB of listing"
                            + " pages, %.1f MB of object bytes; load average at start %s, at end %s%n",
                    JOBS, OBJECTS, counts.files, counts.checkpoints, counts.lines, seconds, OBJECTS / seconds, cpu,
                    OBJECTS / cpu, serverCpu / 1e9, heap.maxAfterAny() / 1048576.0, heap.collections(), heap.maxAfterFull() / 1048576.0,
                    heap.full(), heap.maxCommitted() / 1048576.0,
                    s3.listRequests() * perMillion, s3.getRequests() * perMillion, s3.listingBytes() * perMillion / 1e6,
                    s3.objectBytes() * perMillion / 1e6,
                    load, Files.readString(Path.of("/proc/loadavg")).trim());
            System.out.println("MILLION summary " + counts.summary);
            assertEquals(expected.files() + expected.checkpoints() + 1, counts.lines, "one line per verdict and the"
                    + " summary");
            assertEquals((OBJECTS + 999) / 1000, s3.listRequests(), "one listing page per 1,000 keys");
            assertEquals(OBJECTS, s3.getRequests(), "one ranged GET per object");
            assertTrue(heap.collections() > 0, "the child collected garbage at least once");
            assertTrue(heap.maxAfterFull() < 64L << 20, "the heap after each full collection stays under 64 MiB: "
                    + heap.maxAfterFull());
        }
    }

    /** @return this JVM's CPU time so far, nanoseconds: the generated store's share of the run */
    private static long ownCpu() {
        return ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO).toNanos();
    }

}
