package dev.safetensors.cli;

import dev.safetensors.fixtures.ChildJvm;
import dev.safetensors.fixtures.LoopbackS3;
import dev.safetensors.s3.S3ClientOptions;
import dev.safetensors.spi.TimeSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Throughput of {@code validate} over a prefix when every request waits 50 ms on the way (a loopback proxy adds
 * it, in front of the module's shared {@link LoopbackS3}, in a bucket of this class's own), against the limit of the
 * same set-up measured in the same run: a plain client that lists the prefix with the AWS SDK and then reads the
 * first 128 KiB of every object with one ranged GET (presigned, through the JDK's {@link HttpClient}) from as many
 * threads as the command has jobs. The ideal is jobs / latency (16 / 0.05 s = 320 objects per second); the machine's
 * cores, which run the store, the proxy and the client, set the real limit, which is why the plain client is the
 * figure to compare with. For each run the proxy reports the requests it saw in flight (most at once, mean), and the
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
                "PREFIX THROUGHPUT, %d ms per request, load %s:%n", DELAY_MILLIS, load()));
        try (ShapingProxy slow = ShapingProxy.delaying(s3.port(), Duration.ofMillis(DELAY_MILLIS), TimeSource.SYSTEM);
             Plain plain = new Plain(URI.create("http://127.0.0.1:" + slow.port()))) {
            String endpoint = "http://127.0.0.1:" + slow.port();
            // warm both up (classes, the JIT, the store's caches): a JVM's start is measured apart, below
            plain.run("n100/", 16, 100);
            command(endpoint, "n100/", 16, 100);
            for (int i = 0; i < JOBS.length; i++) {
                int jobs = JOBS[i];
                String prefix = "n" + OBJECTS[i] + "/";
                slow.resetCounts();
                double limit = plain.run(prefix, jobs, OBJECTS[i]);
                String plainFlight = flight(slow);
                slow.resetCounts();
                double ours = command(endpoint, prefix, jobs, OBJECTS[i]);
                report.append(String.format(Locale.ROOT, "  --jobs %2d, %,5d objects: validate %6.1f objects/s (%s),"
                        + " plain client %6.1f objects/s (%s), ratio %.2f; ideal %.0f; load %s%n", jobs, OBJECTS[i],
                        ours, flight(slow), limit, plainFlight, ours / limit, jobs * 1000.0 / DELAY_MILLIS, load()));
            }
            slow.resetCounts();
            double limit = plain.run("n2500/", 16, 2_500);
            String plainFlight = flight(slow);
            slow.resetCounts();
            double whole = child(endpoint, "n2500/", 16, 2_500);
            report.append(String.format(Locale.ROOT, "  --jobs 16, 2,500 objects, the whole command in a JVM of its"
                    + " own (its start included): %.1f objects/s (%s), plain client %.1f objects/s (%s), ratio %.2f;"
                    + " load %s%n", whole, flight(slow), limit, plainFlight, whole / limit, load()));
        }
        System.out.print(report);
    }

    private static String flight(ShapingProxy proxy) {
        return String.format(Locale.ROOT, "in flight: max %d, mean %.1f; %d requests, %d connections",
                proxy.maxInFlight(), proxy.meanInFlight(), proxy.requests(), proxy.connections());
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

    /** @return objects per second of the same command in a JVM of its own, with the launcher's flags */
    private static double child(String endpoint, String prefix, int jobs, int objects) throws Exception {
        List<String> command = new ArrayList<>(ChildJvm.command());
        command.addAll(List.of("-cp", ChildJvm.testClassPath(), Main.class.getName(), "validate", "--json",
                "--recursive", "--jobs", Integer.toString(jobs), "--s3-endpoint", endpoint, "--s3-path-style",
                "s3://" + BUCKET + "/" + prefix));
        Path out = Files.createTempFile("throughput", ".jsonl");
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD);
            builder.environment().putAll(InProcess.S3_ENV);
            long start = System.nanoTime();
            Process p = builder.start();
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new AssertionError("the child did not finish");
            }
            long took = System.nanoTime() - start;
            assertEquals(0, p.exitValue());
            // every verdict, and the closing summary object
            assertEquals(objects + 1, Files.readAllLines(out).size());
            return objects / (took / 1e9);
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    /**
     * The plain client: the SDK lists, the JDK's {@link HttpClient} sends one presigned ranged GET per object from
     * {@code threads} threads and reads each answer whole.
     */
    private static final class Plain implements AutoCloseable {
        private final S3Client client;
        private final S3Presigner presigner;
        private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

        Plain(URI endpoint) {
            StaticCredentialsProvider keys = StaticCredentialsProvider.create(AwsBasicCredentials.create(
                    LoopbackS3.ACCESS_KEY, LoopbackS3.SECRET_KEY));
            client = S3ClientOptions.DEFAULT.withEndpoint(endpoint).withPathStyle(true).clientBuilder()
                    .region(Region.US_EAST_1).credentialsProvider(keys).build();
            presigner = S3Presigner.builder().endpointOverride(endpoint).region(Region.US_EAST_1)
                    .credentialsProvider(keys)
                    .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build()).build();
        }

        /** @return objects per second, listing included */
        double run(String prefix, int threads, int objects) throws Exception {
            long start = System.nanoTime();
            List<String> keys = client.listObjectsV2Paginator(b -> b.bucket(BUCKET).prefix(prefix)).contents()
                    .stream().map(S3Object::key).toList();
            assertEquals(objects, keys.size());
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<Integer>> reads = new ArrayList<>();
                for (String key : keys) {
                    reads.add(pool.submit(() -> {
                        URI url = presigner.presignGetObject(r -> r.signatureDuration(Duration.ofMinutes(30))
                                .getObjectRequest(g -> g.bucket(BUCKET).key(key))).url().toURI();
                        HttpResponse<InputStream> answer = http.send(HttpRequest.newBuilder(url)
                                .header("Range", "bytes=0-" + (PREFETCH - 1)).build(),
                                HttpResponse.BodyHandlers.ofInputStream());
                        try (InputStream body = answer.body()) {
                            body.readAllBytes();
                        }
                        return answer.statusCode();
                    }));
                }
                for (Future<Integer> read : reads) {
                    assertEquals(206, read.get());
                }
            } finally {
                pool.shutdown();
            }
            return objects / ((System.nanoTime() - start) / 1e9);
        }

        @Override
        public void close() {
            presigner.close();
            client.close();
        }
    }
}
