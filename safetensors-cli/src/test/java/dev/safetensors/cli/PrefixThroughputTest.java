package dev.safetensors.cli;

import dev.safetensors.fixtures.LoopbackS3;
import dev.safetensors.spi.TimeSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Throughput of {@code validate} over a prefix when every request waits 50 ms on the way (a loopback proxy adds
 * it, in front of the module's shared {@link LoopbackS3}, in a bucket of this class's own): the bound is jobs /
 * latency, 16 / 0.05 s = 320 objects per second. A benchmark that prints its figures (see benchmarks/README.md); it
 * asserts only the verdicts and the counts, never a time.
 */
@Tag("slow")
class PrefixThroughputTest {
    private static final long DELAY_MILLIS = Long.getLong("throughput.delayMillis", 50);
    private static final String BUCKET = "throughput";

    @Test
    void validateJobs16AgainstJobs1With50MillisecondsPerRequest() throws Exception {
        LoopbackS3 s3 = LoopbackS3.shared();
        byte[] file = Fixtures.small().build();
        for (int i = 0; i < 2_000; i++) {
            s3.put(BUCKET, String.format("many/d%02d/m%04d.safetensors", i % 20, i), file);
        }
        for (int i = 0; i < 200; i++) {
            s3.put(BUCKET, String.format("few/m%04d.safetensors", i), file);
        }
        try (ShapingProxy slow = ShapingProxy.delaying(s3.port(), Duration.ofMillis(DELAY_MILLIS), TimeSource.SYSTEM)) {
            String endpoint = "http://127.0.0.1:" + slow.port();
            double many = run(endpoint, "s3://" + BUCKET + "/many/", 16, 2_000);
            double few = run(endpoint, "s3://" + BUCKET + "/few/", 1, 200);
            double bound = 16 / (DELAY_MILLIS / 1000.0);
            System.out.printf(Locale.ROOT, "THROUGHPUT 50 ms per request: --jobs 16 over 2,000 objects %.0f"
                    + " objects/s = %.0f%% of %.0f; --jobs 1 over 200 objects %.1f objects/s (bound 20); ratio"
                    + " %.1fx%n", many, 100 * many / bound, bound, few, many / few);
        }
    }

    private static double run(String endpoint, String prefix, int jobs, int objects) {
        long start = System.nanoTime();
        Cli.Run run = InProcess.run(InProcess.S3_ENV, "validate", "--json", "--recursive", "--jobs",
                Integer.toString(jobs), "--s3-endpoint", endpoint, "--s3-path-style", prefix).exits(0);
        long took = System.nanoTime() - start;
        assertEquals(objects, run.json().size(), run.stderr());
        return objects / (took / 1e9);
    }
}
