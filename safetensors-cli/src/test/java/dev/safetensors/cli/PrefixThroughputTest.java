package dev.safetensors.cli;

import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Throughput of {@code validate} over a prefix when every request waits 50 ms on the way (a loopback proxy adds
 * it): the bound is jobs / latency, 16 / 0.05 s = 320 objects per second. A benchmark that prints its figures
 * (see benchmarks/README.md); it asserts only the verdicts and the counts, never a time.
 */
@Tag("slow")
class PrefixThroughputTest {
    private static final long DELAY_MILLIS = Long.getLong("throughput.delayMillis", 50);

    @TempDir
    Path store;

    @Test
    void validateJobs16AgainstJobs1With50MillisecondsPerRequest() throws Exception {
        Path bucket = Files.createDirectories(store.resolve("models"));
        byte[] file = Fixtures.small().build();
        for (int i = 0; i < 2_000; i++) {
            Fixtures.write(bucket, String.format("many/d%02d/m%04d.safetensors", i % 20, i), file);
        }
        for (int i = 0; i < 200; i++) {
            Fixtures.write(bucket, String.format("few/m%04d.safetensors", i), file);
        }
        Properties properties = new Properties();
        properties.setProperty("jclouds.filesystem.basedir", store.toString());
        Map<String, String> saved = new TreeMap<>();
        for (Map.Entry<String, String> e : Map.of("aws.accessKeyId", "k", "aws.secretAccessKey", "s",
                "aws.region", "us-east-1").entrySet()) {
            saved.put(e.getKey(), System.getProperty(e.getKey()));
            System.setProperty(e.getKey(), e.getValue());
        }
        try (BlobStoreContext context = ContextBuilder.newBuilder("filesystem").overrides(properties)
                .build(BlobStoreContext.class)) {
            S3Proxy proxy = S3Proxy.builder().blobStore(context.getBlobStore())
                    .endpoint(URI.create("http://127.0.0.1:0"))
                    .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, "k", "s").build();
            proxy.start();
            try (DelayingProxy slow = new DelayingProxy(proxy.getPort(), DELAY_MILLIS)) {
                String endpoint = "http://127.0.0.1:" + slow.port();
                double many = run(endpoint, "s3://models/many/", 16, 2_000);
                double few = run(endpoint, "s3://models/few/", 1, 200);
                double bound = 16 / (DELAY_MILLIS / 1000.0);
                System.out.printf(Locale.ROOT, "THROUGHPUT 50 ms per request: --jobs 16 over 2,000 objects %.0f"
                        + " objects/s = %.0f%% of %.0f; --jobs 1 over 200 objects %.1f objects/s (bound 20); ratio"
                        + " %.1fx%n", many, 100 * many / bound, bound, few, many / few);
            } finally {
                proxy.stop();
            }
        } finally {
            saved.forEach((k, v) -> {
                if (v == null) {
                    System.clearProperty(k);
                } else {
                    System.setProperty(k, v);
                }
            });
        }
    }

    private static double run(String endpoint, String prefix, int jobs, int objects) {
        long start = System.nanoTime();
        Cli.Run run = InProcess.run("validate", "--json", "--recursive", "--jobs", Integer.toString(jobs),
                "--s3-endpoint", endpoint, "--s3-path-style", prefix).exits(0);
        long took = System.nanoTime() - start;
        assertEquals(objects, run.json().size(), run.stderr());
        return objects / (took / 1e9);
    }
}
