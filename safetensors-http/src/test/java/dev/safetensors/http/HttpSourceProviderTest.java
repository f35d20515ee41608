package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.SourceAccessDeniedException;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

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
        assertTrue(new HttpSourceProvider().supports(Location.parse("hf://a/b/c")), "a public no-argument constructor");
    }

    @Test
    void itSupportsHttpHttpsAndHf() {
        assertTrue(provider.supports(Location.parse("https://example.com/m.safetensors")));
        assertTrue(provider.supports(Location.parse("HTTP://example.com/m.safetensors")));
        assertTrue(provider.supports(Location.parse("hf://acme/repo/m.safetensors")));
        assertFalse(provider.supports(Location.parse("s3://bucket/key")));
        assertFalse(provider.supports(Location.parse("file:///m.safetensors")));
    }

    @Test
    void namesDropUserInformationAndQueries() throws Exception {
        assertEquals("https://example.com/m.safetensors",
                provider.open(Location.parse("https://example.com/m.safetensors?X-Amz-Signature=s#f")).name());
        assertEquals("hf://acme/repo@v1/m.safetensors", provider.open(Location.parse("hf://acme/repo@v1/m.safetensors"))
                .name());
    }

    @Test
    void credentialsInTheUrlAreRefusedWithoutBeingEchoed() {
        InvalidLocationException e = assertThrows(InvalidLocationException.class,
                () -> provider.open(Location.parse("https://user:pa55@example.com/m.safetensors")));
        assertEquals(ErrorCode.INVALID_SOURCE, e.code());
        assertFalse(e.getMessage().contains("pa55"), e.getMessage());
    }

    @Test
    void aPortOutOfRangeIsAnInvalidSource() {
        InvalidLocationException e = assertThrows(InvalidLocationException.class,
                () -> provider.open(Location.parse("http://example.com:99999/m.safetensors")));
        assertEquals(ErrorCode.INVALID_SOURCE, e.code());
        assertTrue(e.getMessage().contains("port"), e.getMessage());
    }

    @Test
    void aTokenWithAControlCharacterIsRefusedWithoutBeingEchoed() {
        SourceAccessDeniedException e = assertThrows(SourceAccessDeniedException.class,
                () -> HttpSourceProvider.environment(Map.of("HF_TOKEN", "hf_s3cr3t\u0007tail")));
        assertEquals(ErrorCode.ACCESS_DENIED, e.code());
        assertTrue(e.getMessage().contains("HF_TOKEN contains a character not allowed in an HTTP header"),
                e.getMessage());
        assertFalse(e.getMessage().contains("s3cr3t"), e.getMessage());
        assertFalse(e.getMessage().contains("tail"), e.getMessage());
    }

    @Test
    void aMalformedHubEndpointIsAnInvalidEndpoint() {
        for (String endpoint : new String[] {"ht tp://hub", "ftp://hub.example", "https://", "not a url"}) {
            InvalidLocationException e = assertThrows(InvalidLocationException.class,
                    () -> HttpSourceProvider.environment(Map.of("HF_ENDPOINT", endpoint)), endpoint);
            assertEquals(ErrorCode.INVALID_ENDPOINT, e.code(), endpoint);
        }
    }
}
