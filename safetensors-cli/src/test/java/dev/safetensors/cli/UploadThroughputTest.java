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
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;
import java.util.Locale;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Upload throughput against a per-connection cap: a 128 MiB checkpoint written to s3proxy through a proxy that
 * paces every connection to {@value #CAP} bytes/s, at parallelism 1, 4 and 8 (8 MiB parts), reported as a ratio to
 * connections x cap, the physical limit of the set-up, measured in the same run. Slow tier: real time is what it
 * measures; it asserts the objects, never a time.
 */
@Tag("slow")
class UploadThroughputTest {
    private static final long CAP = 8L << 20;
    private static final int BYTES = 128 << 20;

    @Test
    void partsSideBySideApproachConnectionsTimesTheCap() throws Exception {
        byte[] bytes = new byte[BYTES];
        new SplittableRandom(37).nextBytes(bytes);
        LoopbackS3 s3 = LoopbackS3.shared();
        s3.put("throughput", "placeholder", new byte[0]);
        StringBuilder report = new StringBuilder("UPLOAD THROUGHPUT (" + (BYTES >> 20) + " MiB, cap "
                + (CAP >> 20) + " MiB/s per connection, 8 MiB parts):");
        try (ShapingProxy proxy = ShapingProxy.throttling(s3.port(), CAP, TimeSource.SYSTEM);
             S3Client client = S3ClientOptions.DEFAULT.withEndpoint(URI.create("http://127.0.0.1:" + proxy.port()))
                     .withPathStyle(true).clientBuilder().region(Region.US_EAST_1)
                     .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                             LoopbackS3.ACCESS_KEY, LoopbackS3.SECRET_KEY))).build()) {
            for (int parallel : new int[] {1, 4, 8}) {
                try (SourceRegistry registry = SourceRegistry.builder().provider(new S3SourceProvider(client))
                        .writer(new S3ObjectWriter(client)).build()) {
                    ShardedWriter writer = ShardedWriter.create(Long.MAX_VALUE)
                            .tensor("w", DType.U8, new long[] {BYTES}, bytes);
                    long start = System.nanoTime();
                    writer.writeTo(Location.parse("s3://throughput/p" + parallel + "/"), registry,
                            UploadOptions.DEFAULT.withParts(8 << 20, parallel));
                    double seconds = (System.nanoTime() - start) / 1e9;
                    double mibs = BYTES / seconds / (1 << 20);
                    double limit = Math.min(parallel, BYTES / (8.0 * (1 << 20))) * CAP / (double) (1 << 20);
                    report.append(String.format(Locale.ROOT, " --parallel %d: %.2f s, %.1f MiB/s, %.2f of %d x cap;",
                            parallel, seconds, mibs, mibs / limit, parallel));
                    int stored = s3.get("throughput", "p" + parallel + "/model.safetensors").length;
                    assertTrue(stored > BYTES && stored < BYTES + 256, "the object is whole: " + stored);
                }
            }
        }
        System.out.println(report);
    }
}
