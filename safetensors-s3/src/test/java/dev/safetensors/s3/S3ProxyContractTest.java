package dev.safetensors.s3;

import dev.safetensors.RandomAccessSource;
import dev.safetensors.testing.AbstractRandomAccessSourceContractTest;
import org.junit.jupiter.api.BeforeAll;

import java.util.concurrent.atomic.AtomicInteger;

/** The storage contract, against s3proxy: a real S3 API server with its own range and ETag handling. */
class S3ProxyContractTest extends AbstractRandomAccessSourceContractTest {
    private static S3ProxyServer s3;
    private static final AtomicInteger KEYS = new AtomicInteger();

    @BeforeAll
    static void start() throws Exception {
        s3 = S3ProxyServer.shared();
    }


    @Override
    protected RandomAccessSource open(byte[] content) {
        String key = "contract/" + KEYS.incrementAndGet() + ".bin";
        s3.put(key, content);
        return s3.open(key);
    }
}
