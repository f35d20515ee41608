package dev.safetensors.http;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.testing.AbstractRandomAccessSourceContractTest;
import org.junit.jupiter.api.AfterAll;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;

/** The storage contract over WireMock serving genuine ranges, ETags and If-Match, through signed-looking URLs. */
class WireMockContractTest extends AbstractRandomAccessSourceContractTest {
    private static final WireMockServer SERVER = FakeHub.server();
    private static final AtomicInteger OBJECTS = new AtomicInteger();
    private static final HttpSourceProvider PROVIDER = new HttpSourceProvider(HttpSettings.builder()
            .connectTimeout(Duration.ofSeconds(2)).requestTimeout(Duration.ofSeconds(5))
            .maxRetries(1).backoff(Duration.ofMillis(1), Duration.ofMillis(10)).build());

    @AfterAll
    static void stop() {
        SERVER.stop();
    }

    @Override
    protected RandomAccessSource open(byte[] content) throws Exception {
        String path = "/objects/" + OBJECTS.incrementAndGet();
        SERVER.stubFor(get(urlPathEqualTo(path)).willReturn(aResponse().withHeader("ETag", "\"v-" + path + "\"")
                .withBody(content).withTransformers(RangeServingTransformer.NAME)));
        return PROVIDER.open(URI.create(SERVER.baseUrl() + path + "?X-Amz-Signature=secret"));
    }
}
