package dev.safetensors.s3;

import dev.safetensors.RandomAccessSource;
import dev.safetensors.testing.AbstractRandomAccessSourceContractTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.concurrent.atomic.AtomicInteger;

/** The storage contract, against WireMock playing a well-behaved S3 bucket. */
class S3SourceWireMockContractTest extends AbstractRandomAccessSourceContractTest {
    private static WireMockS3 s3;
    private static final AtomicInteger KEYS = new AtomicInteger();

    @BeforeAll
    static void start() {
        s3 = new WireMockS3();
    }

    @AfterAll
    static void stop() {
        s3.close();
    }

    @Override
    protected RandomAccessSource open(byte[] content) {
        String key = "contract/" + KEYS.incrementAndGet() + ".safetensors";
        s3.put(key, StoredObject.of(content, "\"etag-" + key.hashCode() + "\""));
        return s3.open(key);
    }
}
