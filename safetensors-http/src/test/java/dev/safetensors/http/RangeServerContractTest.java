package dev.safetensors.http;

import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.testing.AbstractRandomAccessSourceContractTest;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The storage contract over the test kit's range server (genuine ranges, ETags and If-Match, kept-alive
 * connections), through signed-looking URLs.
 */
class RangeServerContractTest extends AbstractRandomAccessSourceContractTest {
    private static final AtomicInteger OBJECTS = new AtomicInteger();
    private static final HttpSourceProvider PROVIDER = new HttpSourceProvider(HttpSettings.builder()
            .connectTimeout(Duration.ofSeconds(2)).requestTimeout(Duration.ofSeconds(5))
            .maxRetries(1).backoff(Duration.ofMillis(1), Duration.ofMillis(10)).build());

    @Override
    protected RandomAccessSource open(byte[] content) throws Exception {
        URI object = SharedRangeServer.get().publish("/objects/" + OBJECTS.incrementAndGet(), content);
        return PROVIDER.open(Location.parse(object + "?X-Amz-Signature=secret"));
    }
}
