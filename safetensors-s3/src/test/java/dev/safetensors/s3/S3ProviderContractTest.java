package dev.safetensors.s3;

import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.fixtures.AbstractProviderContractTest;

import org.junit.jupiter.api.BeforeAll;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** The provider contract for {@code s3:}, against the module's shared s3proxy. */
class S3ProviderContractTest extends AbstractProviderContractTest {
    private static final AtomicInteger PREFIXES = new AtomicInteger();
    private static S3ProxyServer s3;

    @BeforeAll
    static void start() throws Exception {
        s3 = S3ProxyServer.shared();
    }

    @Override
    protected RandomAccessSourceProvider newProvider() {
        return new S3SourceProvider(s3.options());
    }

    @Override
    protected List<String> supportedLocations() {
        return List.of("s3://bucket/m.safetensors", "S3://bucket/dir/m.safetensors");
    }

    @Override
    protected String malformedLocation() {
        return "s3://bucket-only";
    }

    @Override
    protected boolean givenClientOutlivesProvider() throws Exception {
        new S3SourceProvider(s3.client).close();
        s3.put("provider-contract/after-close.bin", new byte[] {1});
        return true;
    }

    @Override
    protected String putUnderFreshPrefix(List<String> names, byte[] content) {
        String prefix = "provider-contract/" + PREFIXES.incrementAndGet() + "/";
        for (String name : names) {
            s3.put(prefix + name, content);
        }
        return "s3://" + S3ProxyServer.BUCKET + "/" + prefix;
    }
}
