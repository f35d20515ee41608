package dev.safetensors.s3;

import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What checking a prefix costs against s3proxy, counted on the wire by an SDK interceptor: ceil(N / page size)
 * {@code ListObjectsV2} requests, then one ranged GET per file whose header fits the first read.
 */
class S3PrefixCostTest {
    private static final byte[] TINY = "{\"__metadata__\":{}}".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    /** Counts every HTTP request the client sends, retries included (there are none: the client does not retry). */
    private static final class Counting implements ExecutionInterceptor {
        final AtomicLong sent = new AtomicLong();

        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            sent.incrementAndGet();
        }
    }

    /** Puts {@code objects} tiny files straight into the server's store: setting up sends no request. */
    private static void populate(S3ProxyServer server, int objects) {
        for (int i = 0; i < objects; i++) {
            // nested prefixes: run/a{0..9}/b{0..9}/m{i}.safetensors
            server.put("run/a" + i % 10 + "/b" + i / 10 % 10 + "/m" + i + ".safetensors", prefixed(TINY));
        }
    }

    /** A valid, tensor-less safetensors file: the 8-byte length, then the header. */
    private static byte[] prefixed(byte[] header) {
        ByteBuffer b = ByteBuffer.allocate(8 + header.length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        return b.putLong(header.length).put(header).array();
    }

    private static void measure(int objects, int pageSize) throws Exception {
        // a server of its own: the listing of run/ must find exactly the objects put here, none of another class's
        try (S3ProxyServer server = new S3ProxyServer()) {
            populate(server, objects);
            Counting counting = new Counting();
            try (S3Client client = server.options().clientBuilder().region(Region.US_EAST_1)
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                            S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)))
                    .overrideConfiguration(c -> c.addExecutionInterceptor(counting)
                            .retryStrategy(software.amazon.awssdk.awscore.retry.AwsRetryStrategy.doNotRetry()))
                    .build()) {
                S3SourceProvider provider = new S3SourceProvider(client);
                long files = 0;
                ByteBuffer first = ByteBuffer.allocate(128 * 1024);
                try (Listing listing = provider.list(Location.parse("s3://" + S3ProxyServer.BUCKET + "/run/"),
                        ListOptions.DEFAULT.withRecursive(true).withPageSize(pageSize))) {
                    long listed = counting.sent.get();
                    while (listing.hasNext()) {
                        ListEntry e = listing.next();
                        try (RandomAccessSource source = provider.open(Location.of(e.location().uri().orElseThrow()))) {
                            first.clear();
                            source.read(0, first);
                            assertEquals(e.size(), first.position(), "the whole tiny object in one read");
                        }
                        files++;
                    }
                    long pages = (objects + pageSize - 1) / pageSize;
                    assertEquals(objects, files);
                    assertEquals(pages, listing.cost().requests());
                    assertEquals(pages + objects, counting.sent.get() - listed,
                            "ceil(N / page) listing requests plus one GET per file");
                    System.out.printf("PREFIX %,d objects on s3proxy, pages of %,d: %d ListObjectsV2 + %,d GET = %,d"
                            + " requests%n", objects, pageSize, pages, files, counting.sent.get() - listed);
                }
            }
        }
    }

    @Test
    void aSmallNestedPrefixCostsItsPagesAndOneRequestPerFile() throws Exception {
        measure(250, 100);
    }

    @Test
    @Tag("slow")
    void fiveThousandObjectsInPagesOfAThousand() throws Exception {
        measure(5_000, 1_000);
    }
}
