package dev.safetensors.cli;

import dev.safetensors.fixtures.LoopbackS3;
import dev.safetensors.spi.TimeSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Throughput of {@code validate} over a prefix when every request waits 50 ms on the way (a loopback proxy adds
 * it, in front of the module's shared {@link LoopbackS3}, in a bucket of this class's own), against the limit of the
 * same set-up measured in the same run: a plain client that lists the prefix with the AWS SDK and then reads the
 * first 128 KiB of every object with one ranged GET ({@link PlainS3Client}) from as many threads as the command has
 * jobs. The ideal is jobs / latency (16 / 0.05 s = 320 objects per second); the machine's
 * cores, which run the store, the proxy and the client, set the real limit, which is why the plain client is the
 * figure to compare with. The command runs in this JVM at each number of jobs, then once through the launcher
 * ({@code bin/safetensors}, when {@code mvn package} has built it), its JVM's start included. For each run the proxy
 * reports the requests it saw in flight (most at once, mean), and the
 * connections the client opened. A benchmark that prints its figures (see benchmarks/README.md); it asserts only the
 * verdicts and the counts, never a time.
 */
@Tag("slow")
class PrefixThroughputTest {
    private static final long DELAY_MILLIS = Long.getLong("throughput.delayMillis", 50);
    private static final String BUCKET = "throughput";
    private static final int[] JOBS = {1, 4, 16, 64};
    /** Objects per run at each of {@link #JOBS}: about 10 s of the ideal at 1 and 4, more past. */
    private static final int[] OBJECTS = {200, 800, 2_500, 2_500};
    private static final int PREFETCH = 128 * 1024;
    /** The launcher's run over one object, the measured run's start and set-up cost. */
    private static double startSeconds;

    @Test
    void validateAgainstAPlainClientAtJobs1To64With50MillisecondsPerRequest() throws Exception {
        LoopbackS3 s3 = LoopbackS3.shared();
        byte[] file = Fixtures.small().build();
        for (int objects : new int[] {100, 200, 800, 2_500}) {
            for (int i = 0; i < objects; i++) {
                s3.put(BUCKET, String.format(Locale.ROOT, "n%d/d%02d/m%04d.safetensors", objects, i % 25, i), file);
            }
        }
        StringBuilder report = new StringBuilder(String.format(Locale.ROOT,
                "PREFIX THROUGHPUT, %d ms per request, load %s:%n", DELAY_MILLIS, MachineLoad.now()));
        try (ShapingProxy slow = ShapingProxy.delaying(s3.port(), Duration.ofMillis(DELAY_MILLIS), TimeSource.SYSTEM);
             PlainS3Client plain = new PlainS3Client(URI.create("http://127.0.0.1:" + slow.port()))) {
            String endpoint = "http://127.0.0.1:" + slow.port();
            // warm both up (classes, the JIT, the store's caches): a JVM's start is measured apart, below
            plain(plain, "n100/", 16, 100);
            command(endpoint, "n100/", 16, 100);
            for (int i = 0; i < JOBS.length; i++) {
                int jobs = JOBS[i];
                String prefix = "n" + OBJECTS[i] + "/";
                slow.resetCounts();
                double limit = plain(plain, prefix, jobs, OBJECTS[i]);
                String plainFlight = slow.flightReport();
                slow.resetCounts();
                double ours = command(endpoint, prefix, jobs, OBJECTS[i]);
                report.append(String.format(Locale.ROOT, "  --jobs %2d, %,5d objects: validate %6.1f objects/s (%s),"
                        + " plain client %6.1f objects/s (%s), ratio %.2f; ideal %.0f; load %s%n", jobs, OBJECTS[i],
                        ours, slow.flightReport(), limit, plainFlight, ours / limit, jobs * 1000.0 / DELAY_MILLIS,
                        MachineLoad.now()));
            }
            slow.resetCounts();
            double limit = plain(plain, "n2500/", 16, 2_500);
            String plainFlight = slow.flightReport();
            slow.resetCounts();
            double whole = launched(endpoint, "n2500/", 16, 2_500);
            report.append(whole < 0 ? "  the whole command: not measured (bin/safetensors needs mvn package first)\n"
                    : String.format(Locale.ROOT, "  --jobs 16, 2,500 objects, the whole command (bin/safetensors, its"
                    + " JVM's start included): %.1f objects/s (%s), plain client %.1f objects/s (%s), ratio %.2f;"
                    + " the launcher over one object took %.2f s; load %s%n", whole, slow.flightReport(), limit,
                    plainFlight, whole / limit, startSeconds, MachineLoad.now()));
        }
        System.out.print(report);
    }


    /** @return objects per second of {@code validate --json --recursive} run in this JVM */
    private static double command(String endpoint, String prefix, int jobs, int objects) {
        long start = System.nanoTime();
        Cli.Run run = InProcess.run(InProcess.S3_ENV, "validate", "--json", "--recursive", "--jobs",
                Integer.toString(jobs), "--s3-endpoint", endpoint, "--s3-path-style", "s3://" + BUCKET + "/" + prefix)
                .exits(0);
        long took = System.nanoTime() - start;
        assertEquals(objects, run.json().size(), run.stderr());
        return objects / (took / 1e9);
    }

    /**
     * @return objects per second of the same command run by the launcher, {@code bin/safetensors}, its JVM's start
     *         included; {@code -1} when the launcher's layout is not built ({@code mvn package} makes it)
     */
    private static double launched(String endpoint, String prefix, int jobs, int objects) {
        if (!Files.isDirectory(Path.of("target/lib/modules"))) {
            return -1;
        }
        // what the launcher costs before the first request: one object validated the same way
        long first = System.nanoTime();
        Cli.run(Cli.asShipped(InProcess.S3_ENV), "validate", "--json", "--s3-endpoint", endpoint, "--s3-path-style",
                "s3://" + BUCKET + "/n100/d00/m0000.safetensors").exits(0);
        startSeconds = (System.nanoTime() - first) / 1e9;
        long start = System.nanoTime();
        Cli.Run run = Cli.run(Cli.asShipped(InProcess.S3_ENV), "validate", "--json", "--recursive", "--jobs",
                Integer.toString(jobs), "--s3-endpoint", endpoint, "--s3-path-style", "s3://" + BUCKET + "/" + prefix)
                .exits(0);
        long took = System.nanoTime() - start;
        assertEquals(objects, run.json().size(), run.stderr());
        return objects / (took / 1e9);
    }

    /** @return objects per second of the plain client: list, then one ranged GET per object from that many threads */
    private static double plain(PlainS3Client plain, String prefix, int threads, int objects) throws Exception {
        long start = System.nanoTime();
        List<String> keys = plain.list(BUCKET, prefix);
        assertEquals(objects, keys.size());
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Long>> reads = new ArrayList<>();
            for (String key : keys) {
                reads.add(pool.submit(() -> plain.get(BUCKET, key, 0, PREFETCH - 1)));
            }
            for (Future<Long> read : reads) {
                read.get();
            }
        } finally {
            pool.shutdown();
        }
        return objects / ((System.nanoTime() - start) / 1e9);
    }
}
