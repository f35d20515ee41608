package dev.safetensors.cli;

import dev.safetensors.DType;
import dev.safetensors.Location;
import dev.safetensors.core.ShardedWriter;
import dev.safetensors.core.SourceRegistry;
import dev.safetensors.fixtures.LoopbackS3;
import dev.safetensors.s3.S3ClientOptions;
import dev.safetensors.s3.S3ObjectWriter;
import dev.safetensors.s3.S3SourceProvider;
import dev.safetensors.spi.TimeSource;
import dev.safetensors.spi.UploadOptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Download throughput of one large object against a per-connection cap: a 128 MiB checkpoint in s3proxy behind a
 * proxy that paces every answer to {@value #CAP} bytes/s ({@link ShapingProxy#throttlingAnswers}), fetched with
 * {@code download --parallel N} (8 MiB parts) at N = 1, 4 and 8, the file whole and its SHA-256 checked, and reported
 * as a ratio to N x cap and to a plain client in the same run ({@link PlainS3Client}: N ranged GETs of an Nth of
 * the object each, side by side). The command runs in this JVM, and once more at N = 4 through the launcher
 * ({@code bin/safetensors}, when {@code mvn package} has built it), its JVM's start included. Slow tier: real time is what it measures; it asserts
 * the file, never a time.
 */
@Tag("slow")
class DownloadThroughputTest {
    private static final long CAP = 8L << 20;
    private static final int BYTES = 128 << 20;
    private static final String BUCKET = "throughput";

    @TempDir
    Path dir;

    @Test
    void partsSideBySideApproachConnectionsTimesTheCap() throws Exception {
        LoopbackS3 s3 = LoopbackS3.shared();
        String key = upload(s3);
        byte[] stored = s3.get(BUCKET, key);
        String sha = Fixtures.sha256(stored);
        long size = stored.length;
        stored = null;
        StringBuilder report = new StringBuilder(String.format(Locale.ROOT, "DOWNLOAD THROUGHPUT (%d MiB, cap %d"
                + " MiB/s per connection, 8 MiB parts), load %s:%n", size >> 20, CAP >> 20, MachineLoad.now()));
        try (ShapingProxy proxy = ShapingProxy.throttlingAnswers(s3.port(), CAP, TimeSource.SYSTEM);
             PlainS3Client plain = new PlainS3Client(URI.create("http://127.0.0.1:" + proxy.port()))) {
            String endpoint = "http://127.0.0.1:" + proxy.port();
            // warm both up: classes and the JIT; the JVM's start is measured apart, below
            plain(plain, key, size, 8);
            command(endpoint, key, 8, sha, false);
            for (int parallel : new int[] {1, 4, 8}) {
                double limit = plain(plain, key, size, parallel);
                double ours = command(endpoint, key, parallel, sha, false);
                double bound = parallel * CAP / (double) (1 << 20);
                report.append(String.format(Locale.ROOT, "  --parallel %d: download %5.1f MiB/s = %.2f of %d x cap,"
                        + " plain client %5.1f MiB/s = %.2f of it; ratio to the plain client %.2f; load %s%n",
                        parallel, ours, ours / bound, parallel, limit, limit / bound, ours / limit,
                        MachineLoad.now()));
            }
            if (Files.isDirectory(Path.of("target/lib/modules"))) {
                // what the launcher costs before the first request: a download of an empty prefix
                long first = System.nanoTime();
                Cli.run(Cli.asShipped(InProcess.S3_ENV), "download", "s3://" + BUCKET + "/nothing/", "--out",
                        dir.resolve("none").toString(), "--s3-endpoint", endpoint, "--s3-path-style").exits(3);
                double startSeconds = (System.nanoTime() - first) / 1e9;
                double limit = plain(plain, key, size, 4);
                double whole = command(endpoint, key, 4, sha, true);
                report.append(String.format(Locale.ROOT, "  --parallel 4, the whole command (bin/safetensors, its"
                        + " JVM's start included): %5.1f MiB/s = %.2f of 4 x cap; plain client %5.1f MiB/s; ratio"
                        + " %.2f; the launcher over an empty prefix took %.2f s; load %s%n", whole,
                        whole / (4 * CAP / (double) (1 << 20)), limit, whole / limit, startSeconds,
                        MachineLoad.now()));
            } else {
                report.append("  the whole command: not measured (bin/safetensors needs mvn package first)\n");
            }
        }
        System.out.print(report);
    }

    /** Writes the checkpoint straight to the store (no proxy): one U8 tensor of random bytes. */
    private static String upload(LoopbackS3 s3) throws Exception {
        byte[] bytes = new byte[BYTES];
        new SplittableRandom(37).nextBytes(bytes);
        s3.put(BUCKET, "placeholder", new byte[0]);
        try (S3Client client = S3ClientOptions.DEFAULT.withEndpoint(s3.endpoint()).withPathStyle(true)
                .clientBuilder().region(Region.US_EAST_1).credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(LoopbackS3.ACCESS_KEY, LoopbackS3.SECRET_KEY))).build();
             SourceRegistry registry = SourceRegistry.builder().provider(new S3SourceProvider(client))
                     .writer(new S3ObjectWriter(client)).build()) {
            ShardedWriter.create(Long.MAX_VALUE).tensor("w", DType.U8, new long[] {BYTES}, bytes)
                    .writeTo(Location.parse("s3://" + BUCKET + "/big/"), registry, UploadOptions.DEFAULT);
        }
        return "big/model.safetensors";
    }

    /** @return MiB/s of N ranged GETs of an Nth of the object each, side by side */
    private static double plain(PlainS3Client plain, String key, long size, int parallel) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(parallel);
        long start = System.nanoTime();
        try {
            List<Future<Long>> reads = new ArrayList<>();
            for (int i = 0; i < parallel; i++) {
                long first = size * i / parallel;
                long last = size * (i + 1) / parallel - 1;
                reads.add(pool.submit(() -> plain.get(BUCKET, key, first, last)));
            }
            long read = 0;
            for (Future<Long> r : reads) {
                read += r.get();
            }
            assertEquals(size, read);
        } finally {
            pool.shutdown();
        }
        return size / ((System.nanoTime() - start) / 1e9) / (1 << 20);
    }

    /** @return MiB/s of {@code download --parallel N}, the file checked whole by its SHA-256, then deleted */
    private double command(String endpoint, String key, int parallel, String sha, boolean launched) throws Exception {
        Path out = Files.createTempDirectory(dir, "out");
        String[] args = {"download", "s3://" + BUCKET + "/" + key, "--out", out.toString(), "--parallel",
                Integer.toString(parallel), "--part-size", "8MiB", "--s3-endpoint", endpoint, "--s3-path-style"};
        long start = System.nanoTime();
        if (launched) {
            Cli.run(Cli.asShipped(InProcess.S3_ENV), args).exits(0);
        } else {
            InProcess.run(InProcess.S3_ENV, args).exits(0);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        Path file = out.resolve("model.safetensors");
        long size = Files.size(file);
        assertEquals(sha, Fixtures.sha256(file), "the file is whole");
        Files.delete(file);
        return size / seconds / (1 << 20);
    }
}
