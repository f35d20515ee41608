package dev.safetensors.http;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TokenPolicyTest {
    private static Optional<String> authorization(String endpoint, String url, boolean leftHub) {
        return new TokenPolicy(HttpSettings.builder().hubEndpoint(URI.create(endpoint)).token("t").build())
                .authorization(URI.create(url), leftHub);
    }

    @Test
    void theHubOriginOverHttpsGetsTheToken() {
        assertEquals(Optional.of("Bearer t"), authorization("https://huggingface.co",
                "https://HuggingFace.co:443/a/b/resolve/main/x", false));
    }

    @Test
    void otherOriginsNeverGetIt() {
        assertFalse(authorization("https://huggingface.co", "https://cdn-lfs.hf.co/x", false).isPresent());
        assertFalse(authorization("https://huggingface.co", "https://huggingface.co:8443/x", false).isPresent());
        assertFalse(authorization("https://huggingface.co", "http://huggingface.co/x", false).isPresent());
        assertFalse(authorization("https://huggingface.co", "https://huggingface.co.evil.example/x", false)
                .isPresent());
    }

    @Test
    void aChainThatLeftTheHubNeverGetsItAgain() {
        assertFalse(authorization("https://huggingface.co", "https://huggingface.co/x", true).isPresent());
    }

    @Test
    void plainHttpGetsItOnlyOnLoopback() {
        assertFalse(authorization("http://hub.internal", "http://hub.internal/x", false).isPresent());
        assertFalse(authorization("http://10.0.0.1:8080", "http://10.0.0.1:8080/x", false).isPresent());
        assertTrue(authorization("http://127.0.0.1:8080", "http://127.0.0.1:8080/x", false).isPresent());
        assertTrue(authorization("http://localhost:8080", "http://localhost:8080/x", false).isPresent());
        assertTrue(authorization("http://[::1]:8080", "http://[::1]:8080/x", false).isPresent());
        assertFalse(authorization("http://127.0.0.1.evil.example", "http://127.0.0.1.evil.example/x", false)
                .isPresent());
    }

    @Test
    void settingsNeverPrintTheToken() {
        String printed = HttpSettings.builder().token("hf_very_secret").build().toString();
        assertFalse(printed.contains("hf_very_secret"), printed);
    }
}
