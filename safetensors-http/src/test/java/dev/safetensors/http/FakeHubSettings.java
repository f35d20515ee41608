package dev.safetensors.http;

import dev.safetensors.fixtures.FakeHub;

import java.time.Duration;

/** Client settings for the test kit's {@link FakeHub}: its endpoint and token, short timeouts, near-instant retries. */
final class FakeHubSettings {
    private FakeHubSettings() {
    }

    static HttpSettings.Builder of(FakeHub hub) {
        return HttpSettings.builder().hubEndpoint(hub.endpoint()).token(FakeHub.TOKEN)
                .connectTimeout(Duration.ofSeconds(2)).requestTimeout(Duration.ofSeconds(5))
                .maxRetries(3).backoff(Duration.ofMillis(1), Duration.ofSeconds(2));
    }
}
