package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.RepositoryListing;
import dev.safetensors.SourceAccessDeniedException;
import dev.safetensors.SourceIdentity;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
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
 * {@link HttpClient}: one the provider creates on first use and {@link #close() closes}, or the caller's, which it
 * never closes. Opening makes no request. Thread-safe.
 */
public final class HttpSourceProvider implements RandomAccessSourceProvider, AutoCloseable {
    private final HttpSettings explicit;
    private final HttpClient userClient;
    private final HubCache cache;
    private volatile HttpTransport transport;

    /**
     * A provider configured from the environment when it first opens a source, reading {@code hf://} files from the
     * Hugging Face cache the environment names ({@link HubCache#fromEnvironment()}) when they are there.
     */
    public HttpSourceProvider() {
        this.explicit = null;
        this.userClient = null;
        this.cache = HubCache.fromEnvironment();
    }

    /** @param settings the endpoint, token, timeouts and retries to use; no Hugging Face cache is read */
    public HttpSourceProvider(HttpSettings settings) {
        this.explicit = Objects.requireNonNull(settings, "settings");
        this.userClient = null;
        this.cache = null;
    }

    /**
     * A provider that reads {@code hf://} files from a Hugging Face cache when they are there (see
     * {@link #open(Location)}).
     *
     * @param settings the endpoint, token, timeouts and retries to use
     * @param cache    the cache to read, shared with {@code huggingface_hub}
     */
    public HttpSourceProvider(HttpSettings settings, HubCache cache) {
        this.explicit = Objects.requireNonNull(settings, "settings");
        this.userClient = null;
        this.cache = Objects.requireNonNull(cache, "cache");
    }

    /**
     * A provider that sends through the caller's client (its {@code SSLContext}, proxy, executor), which it never
     * closes. The client must not follow redirects ({@link HttpClient.Redirect#NEVER}, the default): the source
     * follows them itself and decides hop by hop where a token may go.
     *
     * @param settings the endpoint, token, timeouts and retries to use
     * @param client   the client every source sends through
     * @throws IllegalArgumentException if the client follows redirects
     */
    public HttpSourceProvider(HttpSettings settings, HttpClient client) {
        this.explicit = Objects.requireNonNull(settings, "settings");
        this.userClient = Objects.requireNonNull(client, "client");
        this.transport = new HttpTransport(settings, client);
        this.cache = null;
    }

    @Override
    public boolean supports(Location location) {
        String scheme = location.scheme();
        return location.uri().isPresent() && (scheme.equals("http") || scheme.equals("https") || scheme.equals("hf"));
    }

    /**
     * Opens a file. With a Hugging Face cache ({@link HubCache}), an {@code hf://} file is read from it as
     * {@code huggingface_hub} would: at a commit that the cache holds, from disk with no request; at a branch or tag,
     * after one {@code HEAD} that resolves it (only when the cache holds a folder for the repository), or with no
     * request at all under {@code HF_HUB_OFFLINE} through {@code refs/}; a file not in the cache is read from the Hub,
     * pinned to the resolved commit. Offline, a file not in the cache is a
     * {@link dev.safetensors.SourceNotFoundException}.
     *
     * @param location an {@code http}, {@code https} or {@code hf} URI of one file
     * @return a source; no request is made until the first read, except the one {@code HEAD} above
     * @throws IOException an {@link InvalidLocationException} if the URI is malformed, names a Hub repository rather
     *                     than a file or carries credentials ({@link ErrorCode#INVALID_SOURCE}), or
     *                     {@code HF_ENDPOINT} is not an http(s) URL ({@link ErrorCode#INVALID_ENDPOINT}); a
     *                     {@link SourceAccessDeniedException} if {@code HF_TOKEN} cannot be sent in a header
     */
    @Override
    public RandomAccessSource open(Location location) throws IOException {
        URI uri = location.requireUri();
        if (cache != null && location.scheme().equals("hf")) {
            HubPath at = HubPath.parse(uri);
            if (!at.path().isEmpty()) {
                return new HubCacheReader(cache, () -> new HubRepository(transport())).open(location, at,
                        pinned -> HttpSource.open(transport(), pinned));
            }
        }
        return HttpSource.open(transport(), uri);
    }

    /**
     * @param location an {@code hf://} repository, {@code hf://[datasets/|spaces/]NAMESPACE/REPO[@REVISION]}, or a
     *                 folder in one ({@code .../unet}): any {@code hf://} location whose path does not end in
     *                 {@code .safetensors} or {@code .json}
     * @return its checkpoints, listed with one request ({@link HubRepository#list}), or from the Hugging Face cache
     *         without a request when the revision is a commit whose snapshot the cache holds (or, offline, a ref the
     *         cache holds); empty for any other location
     * @throws IOException if the location is malformed or the listing fails
     */
    @Override
    public Optional<RepositoryListing> listCheckpoints(Location location) throws IOException {
        if (!location.scheme().equals("hf")) {
            return Optional.empty();
        }
        HubPath at = HubPath.parse(location.requireUri());
        String path = at.path();
        if (path.endsWith(".safetensors") || path.endsWith(".json")) {
            return Optional.empty();
        }
        if (cache != null) {
            Optional<RepositoryListing> cached = new HubCacheReader(cache, () -> new HubRepository(transport()))
                    .list(location, at);
            if (cached.isPresent()) {
                return cached;
            }
        }
        return Optional.of(new HubRepository(transport()).list(location));
    }

    /**
     * Beside {@code file}, and for an {@code hf://} file read without a revision in its location, pinned to the
     * commit it was read at ({@code hf://NS/REPO@COMMIT/...}), so a branch that moves cannot mix two commits.
     */
    @Override
    public Location sibling(Location file, String name, SourceIdentity identity) {
        Location beside = file.sibling(name);
        if (identity.revision() == null || !beside.scheme().equals("hf") || beside.text().contains("@")) {
            return beside;
        }
        try {
            return Location.of(HubPath.parse(beside.uri().orElseThrow()).at(identity.revision()).toUri());
        } catch (IOException e) {
            return beside; // opening it reports what is malformed
        }
    }

    /**
     * Lists a folder of a Hub repository ({@code hf://NAMESPACE/REPO[@REVISION]/[FOLDER/]}, datasets and spaces
     * included) with the tree API, page by page; plain {@code http(s)} URLs cannot be listed.
     *
     * @throws IOException {@link ErrorCode#NOT_LISTABLE} for an {@code http(s)} URL; a malformed {@code hf://}
     *                     location as when opened
     */
    @Override
    public Listing list(Location prefix, ListOptions options) throws IOException {
        if (!prefix.scheme().equals("hf") || prefix.uri().isEmpty()) {
            return RandomAccessSourceProvider.super.list(prefix, options);
        }
        return HubTreeListing.of(transport(), prefix.uri().get(), options);
    }

    /** Closes the client this provider created, if any; a client passed in stays open. Idempotent. */
    @Override
    public void close() {
        HttpTransport t;
        synchronized (this) {
            t = transport;
            if (userClient == null) {
                transport = null;
            }
        }
        if (t != null && userClient == null) {
            t.closeClient();
        }
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
        return environment(System.getenv());
    }

    /** @return the settings from the environment, with its mistakes as coded failures that quote no token */
    static HttpSettings environment(java.util.Map<String, String> env) throws IOException {
        // the endpoint first, then the token, so each mistake gets its own code without reading a message
        java.util.Map<String, String> withoutToken = new java.util.HashMap<>(env);
        withoutToken.remove("HF_TOKEN");
        HttpSettings settings;
        try {
            settings = HttpSettings.fromEnvironment(withoutToken);
        } catch (IllegalArgumentException e) {
            throw new InvalidLocationException(ErrorCode.INVALID_ENDPOINT, "HF_ENDPOINT: " + e.getMessage());
        }
        String token = env.get("HF_TOKEN");
        if (token == null || token.isBlank()) {
            return settings;
        }
        try {
            return settings.toBuilder().token(token.trim()).build();
        } catch (IllegalArgumentException e) {
            throw new SourceAccessDeniedException("HF_TOKEN", e.getMessage());
        }
    }
}
