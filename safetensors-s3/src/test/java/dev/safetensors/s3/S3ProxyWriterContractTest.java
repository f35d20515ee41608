package dev.safetensors.s3;

import dev.safetensors.Location;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.fixtures.AbstractObjectWriterContractTest;
import dev.safetensors.fixtures.LoopbackS3;
import dev.safetensors.spi.ObjectWriterProvider;
import org.junit.jupiter.api.BeforeAll;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The write contract against s3proxy, a real S3 API server with its own multipart uploads, listings and
 * {@code If-None-Match: *} on PutObject (so the race at commit runs here too): the module's shared one
 * ({@link S3ProxyServer}), which ignores the checksum headers it does not implement and reports none back. The
 * refusal at CompleteMultipartUpload, and checksums S3 reports back, are tested against WireMock
 * ({@code S3ObjectWriterWireMockTest}).
 */
class S3ProxyWriterContractTest extends AbstractObjectWriterContractTest {
    private static final AtomicInteger PREFIXES = new AtomicInteger();
    private static S3ProxyServer s3;

    @BeforeAll
    static void start() throws Exception {
        s3 = S3ProxyServer.shared();
        // the bucket exists once something is in it; the contract's prefixes are below written/N/
        LoopbackS3.shared().put(S3ProxyServer.BUCKET, "written/.bucket", new byte[0]);
    }

    @Override
    protected ObjectWriterProvider newWriter() {
        return new S3ObjectWriter(s3.options());
    }

    @Override
    protected RandomAccessSourceProvider readProvider() {
        return new S3SourceProvider(s3.client);
    }

    @Override
    protected Location newPrefix() {
        return Location.parse("s3://" + S3ProxyServer.BUCKET + "/written/" + PREFIXES.incrementAndGet() + "/");
    }

    @Override
    protected boolean storeKeepsIncompleteUploads() {
        return true;
    }
}
