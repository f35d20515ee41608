package dev.safetensors.http;

import dev.safetensors.RandomAccessSourceProvider;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HttpSourceProviderTest {
    private final HttpSourceProvider provider = new HttpSourceProvider(HttpSettings.builder()
            .hubEndpoint(URI.create("http://127.0.0.1:9")).build());

    /**
     * Only a module that {@code uses} the SPI may load it (core does), so this checks both declarations a loader
     * reads: the module's {@code provides} and the class path's {@code META-INF/services}.
     */
    @Test
    void itIsDeclaredAsAServiceForModulesAndTheClassPath() throws Exception {
        Module module = HttpSourceProvider.class.getModule();
        if (module.isNamed()) {
            assertTrue(module.getDescriptor().provides().stream().anyMatch(p ->
                    p.service().equals(RandomAccessSourceProvider.class.getName())
                            && p.providers().equals(List.of(HttpSourceProvider.class.getName()))));
        }
        try (InputStream in = HttpSourceProvider.class.getResourceAsStream(
                "/META-INF/services/" + RandomAccessSourceProvider.class.getName())) {
            assertEquals(HttpSourceProvider.class.getName(),
                    new String(in.readAllBytes(), StandardCharsets.UTF_8).trim());
        }
        assertTrue(new HttpSourceProvider().supports(URI.create("hf://a/b/c")), "a public no-argument constructor");
    }

    @Test
    void itSupportsHttpHttpsAndHf() {
        assertTrue(provider.supports(URI.create("https://example.com/m.safetensors")));
        assertTrue(provider.supports(URI.create("HTTP://example.com/m.safetensors")));
        assertTrue(provider.supports(URI.create("hf://acme/repo/m.safetensors")));
        assertFalse(provider.supports(URI.create("s3://bucket/key")));
        assertFalse(provider.supports(URI.create("file:///m.safetensors")));
    }

    @Test
    void namesDropUserInformationAndQueries() throws Exception {
        assertEquals("https://example.com/m.safetensors",
                provider.open(URI.create("https://example.com/m.safetensors?X-Amz-Signature=s#f")).name());
        assertEquals("hf://acme/repo@v1/m.safetensors", provider.open(URI.create("hf://acme/repo@v1/m.safetensors"))
                .name());
    }

    @Test
    void credentialsInTheUrlAreRefusedWithoutBeingEchoed() {
        IOException e = assertThrows(IOException.class,
                () -> provider.open(URI.create("https://user:pa55@example.com/m.safetensors")));
        assertFalse(e.getMessage().contains("pa55"), e.getMessage());
    }
}
