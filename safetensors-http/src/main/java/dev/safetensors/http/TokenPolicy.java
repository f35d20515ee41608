package dev.safetensors.http;

import java.net.URI;
import java.util.Optional;

/**
 * Decides whether a request may carry the Hub token: only to the Hub endpoint's origin, only while a redirect
 * chain has not left that origin (the Hub sends file downloads to a CDN with a signed URL, which must never see
 * the token), and only over {@code https} unless the host is a loopback address. Immutable.
 */
final class TokenPolicy {
    private final String token;
    private final Origin hub;

    TokenPolicy(HttpSettings settings) {
        this.token = settings.token();
        this.hub = Origin.of(settings.hubEndpoint());
    }

    /**
     * @param url            the URL of this hop
     * @param chainLeftHub   whether an earlier hop of the same redirect chain went to another origin
     * @return the {@code Authorization} value for this hop, or empty
     */
    Optional<String> authorization(URI url, boolean chainLeftHub) {
        if (token == null || chainLeftHub) {
            return Optional.empty();
        }
        Origin origin = Origin.of(url);
        if (!origin.equals(hub) || !(origin.isSecure() || origin.isLoopback())) {
            return Optional.empty();
        }
        return Optional.of("Bearer " + token);
    }

    /** @return whether {@code url} belongs to the Hub endpoint's origin */
    boolean isHub(URI url) {
        return Origin.of(url).equals(hub);
    }
}
