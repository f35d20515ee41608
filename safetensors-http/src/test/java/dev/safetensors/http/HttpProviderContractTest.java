package dev.safetensors.http;

import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.fixtures.AbstractProviderContractTest;
import dev.safetensors.fixtures.SafetensorsFixture;

import java.net.URI;
import java.net.http.HttpClient;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The provider contract for {@code http:}, {@code https:} and {@code hf:}: plain URLs cannot be listed; a provider
 * over the application's {@link HttpClient} leaves it working after it is closed.
 */
class HttpProviderContractTest extends AbstractProviderContractTest {

    @Override
    protected RandomAccessSourceProvider newProvider() {
        return new HttpSourceProvider(HttpSettings.builder().build());
    }

    @Override
    protected List<String> supportedLocations() {
        return List.of("https://example.invalid/m.safetensors", "http://example.invalid/m.safetensors",
                "hf://ns/repo/m.safetensors");
    }

    @Override
    protected String malformedLocation() {
        // credentials in a URL are refused before any request
        return "https://user:secret@example.invalid/m.safetensors";
    }

    @Override
    protected boolean givenClientOutlivesProvider() throws Exception {
        byte[] file = SafetensorsFixture.create().tensor("t", "F32", 4).build();
        URI uri = SharedRangeServer.get().publish("/given-client.safetensors", file);
        HttpClient client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
        HttpSourceProvider provider = new HttpSourceProvider(HttpSettings.builder().build(), client);
        provider.close();
        try (RandomAccessSource source = new HttpSourceProvider(HttpSettings.builder().build(), client).open(Location.of(uri))) {
            return source.read(0, ByteBuffer.allocate(8)) > 0;
        }
    }
}
