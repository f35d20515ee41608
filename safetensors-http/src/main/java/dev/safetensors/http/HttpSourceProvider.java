package dev.safetensors.http;

import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.RepositoryListing;

import java.io.IOException;
import java.net.URI;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Opens {@link HttpSource}s for {@code http://}, {@code https://} and
 * {@code hf://[datasets/|spaces/]NAMESPACE/REPO[@REVISION]/PATH} URIs (revision {@code main} by default; see
 * {@link HubPath} for the syntax), the latter resolved against
 * {@code ENDPOINT/[datasets/|spaces/]NAMESPACE/REPO/resolve/REVISION/PATH} where the endpoint is {@code HF_ENDPOINT}
 * or {@code https://huggingface.co}; and lists the checkpoints of Hub repositories ({@link #listCheckpoints},
 * through {@link HubRepository}).
 *
 * <p>The no-argument constructor, used by {@link java.util.ServiceLoader}, reads {@code HF_ENDPOINT} and
 * {@code HF_TOKEN} on first use ({@link HttpSettings#fromEnvironment()}). All sources of one provider share one
 * {@link java.net.http.HttpClient}, created on first use. Opening makes no request. Thread-safe.
 */
public final class HttpSourceProvider implements RandomAccessSourceProvider {
    private final HttpSettings explicit;
    private volatile HttpTransport transport;

    /** A provider configured from the environment when it first opens a source. */
    public HttpSourceProvider() {
        this.explicit = null;
    }

    /** @param settings the endpoint, token, timeouts and retries to use */
    public HttpSourceProvider(HttpSettings settings) {
        this.explicit = Objects.requireNonNull(settings, "settings");
    }

    @Override
    public boolean supports(URI uri) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        return scheme.equals("http") || scheme.equals("https") || scheme.equals("hf");
    }

    /**
     * @param uri an {@code http}, {@code https} or {@code hf} URI of one file
     * @return a source; no request is made until the first read
     * @throws IOException if the URI is malformed, names a Hub repository rather than a file, carries credentials,
     *                     or {@code HF_ENDPOINT} is not an http(s) URL
     */
    @Override
    public RandomAccessSource open(URI uri) throws IOException {
        return HttpSource.open(transport(), uri);
    }

    /**
     * @param location an {@code hf://} repository, {@code hf://[datasets/|spaces/]NAMESPACE/REPO[@REVISION]}, or a
     *                 folder in one ({@code .../unet}): any {@code hf://} location whose path does not end in
     *                 {@code .safetensors} or {@code .json}
     * @return its checkpoints, listed with one request ({@link HubRepository#list}); empty for any other location
     * @throws IOException if the location is malformed or the listing fails
     */
    @Override
    public Optional<RepositoryListing> listCheckpoints(URI location) throws IOException {
        String scheme = location.getScheme() == null ? "" : location.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("hf")) {
            return Optional.empty();
        }
        String path = HubPath.parse(location).path();
        if (path.endsWith(".safetensors") || path.endsWith(".json")) {
            return Optional.empty();
        }
        return Optional.of(new HubRepository(transport()).list(location));
    }

    private HttpTransport transport() throws IOException {
        HttpTransport t = transport;
        if (t == null) {
            synchronized (this) {
                t = transport;
                if (t == null) {
                    t = new HttpTransport(settings());
                    transport = t;
                }
            }
        }
        return t;
    }

    private HttpSettings settings() throws IOException {
        if (explicit != null) {
            return explicit;
        }
        try {
            return HttpSettings.fromEnvironment();
        } catch (IllegalArgumentException e) {
            throw new IOException("HF_ENDPOINT: " + e.getMessage(), e);
        }
    }
}
