package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.SourceAccessDeniedException;
import dev.safetensors.StorageException;
import dev.safetensors.spi.ContentRange;
import dev.safetensors.spi.RequestCounter;
import dev.safetensors.spi.SourceNames;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Makes one logical GET: follows at most {@value #MAX_REDIRECTS} redirects itself (the client is built with
 * {@link HttpClient.Redirect#NEVER}, so every hop is seen and the token decided hop by hop by {@link TokenPolicy}),
 * and logs one {@code DEBUG} line per HTTP exchange (method, redacted URL, range, status, declared bytes). It makes
 * one attempt: {@link dev.safetensors.spi.AbstractRangedSource} retries the whole chain. A connection failure is a
 * {@link StorageException} with {@link ErrorCode#NETWORK} (or {@link ErrorCode#TIMEOUT}), which is retried; redirect
 * loops, chains that are too long and malformed redirects are final {@link StorageException}s.
 *
 * <p>Thread-safe: one transport serves every source opened by a provider.
 */
final class HttpTransport {
    static final int MAX_REDIRECTS = 5;
    private static final System.Logger LOG = System.getLogger("dev.safetensors.http");
    private static final int REDIRECT_BODY_LIMIT = 16 * 1024;
    private static final String USER_AGENT = "safetensors-jvm (java.net.http)";

    private final HttpClient client;
    private final HttpSettings settings;
    private final TokenPolicy tokens;

    HttpTransport(HttpSettings settings) {
        this(settings, HttpClient.newBuilder()
                .connectTimeout(settings.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .build());
    }

    /**
     * @param client a client that does not follow redirects itself: the token is decided hop by hop here
     * @throws IllegalArgumentException if the client follows redirects
     */
    HttpTransport(HttpSettings settings, HttpClient client) {
        if (client.followRedirects() != HttpClient.Redirect.NEVER) {
            throw new IllegalArgumentException("the HttpClient must be built with Redirect.NEVER: redirects are"
                    + " followed by the source, which decides hop by hop where a token may go");
        }
        this.settings = settings;
        this.client = client;
        this.tokens = new TokenPolicy(settings);
    }

    HttpSettings settings() {
        return settings;
    }

    /** Closes the client where the JDK can (an {@code HttpClient} is {@link AutoCloseable} from Java 21 on). */
    void closeClient() {
        if (client instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                LOG.log(System.Logger.Level.DEBUG, () -> "closing the HttpClient failed: " + e);
            }
        }
    }

    /**
     * @param name    the source name, for messages
     * @param start   the first URL
     * @param range   the {@code Range} value, or {@code null}
     * @param pin     the pinned ETag, sent as {@code If-Match} to its own origin only; or {@code null}
     * @param counter counts every HTTP request sent: each attempt of each hop
     * @return the final answer, whatever its status; the caller reads or closes its body
     * @throws IOException if a hop fails after its retries, or the redirects are malformed, looping or too many
     */
    FinalResponse get(String name, URI start, String range, ETagPin pin, RequestCounter counter)
            throws IOException {
        URI url = start;
        Set<String> visited = new HashSet<>();
        visited.add(url.toString());
        boolean leftHub = false;
        String commit = null;
        String linkedEtag = null;
        for (int redirects = 0; ; redirects++) {
            leftHub |= !tokens.isHub(url);
            HttpRequest request = request(name, "GET", url, range, pin, leftHub);
            Sent sent = send(name, request, range, counter);
            HttpResponse<InputStream> response = sent.response();
            commit = commit != null ? commit : response.headers().firstValue("X-Repo-Commit").orElse(null);
            linkedEtag = linkedEtag != null ? linkedEtag : response.headers().firstValue("X-Linked-Etag").orElse(null);
            if (!isRedirect(response.statusCode())) {
                return new FinalResponse(response, sent.body(), url, commit, linkedEtag);
            }
            finishRedirectBody(sent.body());
            URI next = location(name, url, response);
            if (redirects == MAX_REDIRECTS) {
                throw new StorageException(ErrorCode.IO_ERROR, name, "more than " + MAX_REDIRECTS
                        + " redirects, the last one to " + SourceNames.redact(next));
            }
            if (!visited.add(next.toString())) {
                throw new StorageException(ErrorCode.IO_ERROR, name, "redirect loop: " + SourceNames.redact(next)
                        + " was visited before");
            }
            url = next;
        }
    }

    /** Closes a body without reading it: for a streamed HTTP/1.1 body this drops the connection, never drains it. */
    static void discard(InputStream body) {
        try {
            body.close();
        } catch (IOException ignored) {
            // closing is the abort; a failure to close leaves nothing more to do
        }
    }

    /**
     * Reads what is left of a redirect's body if it is short (a chunked body declares no length), so the connection
     * can serve the next hop; a body longer than {@value #REDIRECT_BODY_LIMIT} bytes is abandoned instead.
     */
    private static void finishRedirectBody(InputStream body) {
        try (body) {
            byte[] sink = new byte[4096];
            long seen = 0;
            for (int n; seen <= REDIRECT_BODY_LIMIT && (n = body.read(sink)) >= 0; ) {
                seen += n;
            }
        } catch (IOException ignored) {
            // the connection is dropped instead of reused: nothing else depends on this body
        }
    }

    /**
     * One {@code HEAD}, as {@code huggingface_hub}'s {@code get_hf_file_metadata} makes it: relative redirects (a
     * renamed repository) are followed, a redirect to another host (the CDN of an LFS file) is not, since the Hub's
     * own answer carries what the cache needs ({@code X-Repo-Commit}, {@code X-Linked-Etag} or {@code ETag},
     * {@code X-Linked-Size}). One attempt, no retry: a caller with a cached copy falls back to it.
     *
     * @param name    the source name, for messages
     * @param start   the resolve URL
     * @param counter counts every HTTP request sent
     * @return the last answer, whatever its status, its body closed
     * @throws IOException if the request fails or the relative redirects loop or are too many
     */
    FinalResponse head(String name, URI start, RequestCounter counter) throws IOException {
        URI url = start;
        String commit = null;
        String linkedEtag = null;
        for (int redirects = 0; ; redirects++) {
            Sent sent = send(name, request(name, "HEAD", url, null, null, !tokens.isHub(url)), null, counter);
            HttpResponse<InputStream> response = sent.response();
            discard(sent.body());
            commit = commit != null ? commit : response.headers().firstValue("X-Repo-Commit").orElse(null);
            linkedEtag = linkedEtag != null ? linkedEtag : response.headers().firstValue("X-Linked-Etag").orElse(null);
            String location = response.headers().firstValue("Location").orElse("");
            boolean relative = isRedirect(response.statusCode()) && location.startsWith("/")
                    && !location.startsWith("//");
            if (!relative) {
                return new FinalResponse(response, InputStream.nullInputStream(), url, commit, linkedEtag);
            }
            if (redirects == MAX_REDIRECTS) {
                throw new StorageException(ErrorCode.IO_ERROR, name, "more than " + MAX_REDIRECTS + " redirects");
            }
            url = location(name, url, response);
        }
    }

    private HttpRequest request(String name, String method, URI url, String range, ETagPin pin, boolean leftHub)
            throws IOException {
        Origin origin = Origin.of(url);
        HttpRequest.Builder b;
        try {
            b = HttpRequest.newBuilder(url);
        } catch (IllegalArgumentException e) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, name + ": cannot request "
                    + SourceNames.redact(url));
        }
        b.method(method, HttpRequest.BodyPublishers.noBody()).timeout(settings.requestTimeout())
                .header("User-Agent", USER_AGENT)
                .header("Accept-Encoding", "identity");
        if (!origin.isSecure()) {
            // Plain http would first try an h2c upgrade, which few servers want; HTTP/2 is negotiated over TLS only.
            b.version(HttpClient.Version.HTTP_1_1);
        }
        if (range != null) {
            b.header("Range", range);
        }
        if (pin != null && pin.origin().equals(origin)) {
            b.header("If-Match", pin.etag());
        }
        try {
            tokens.authorization(url, leftHub).ifPresent(v -> b.header("Authorization", v));
        } catch (IllegalArgumentException e) {
            // The JDK's message may quote the value: it is dropped, never attached.
            throw new SourceAccessDeniedException(name, "the token holds a character not allowed in an HTTP header");
        }
        return b.build();
    }

    private Sent send(String name, HttpRequest request, String range, RequestCounter counter) throws IOException {
        String where = request.method() + " " + SourceNames.redact(request.uri());
        HttpResponse<InputStream> response;
        counter.exchange();
        try {
            // Every body is streamed, so that closing it early aborts the exchange instead of draining it.
            response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(name + ": interrupted during " + where);
        } catch (HttpTimeoutException e) {
            LOG.log(System.Logger.Level.DEBUG, () -> where + " Range: " + range + " -> " + e);
            throw new StorageException(ErrorCode.TIMEOUT, name, where + " timed out: "
                    + SourceNames.clip(String.valueOf(e.getMessage())), e);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, () -> where + " Range: " + range + " -> " + e);
            throw new StorageException(ErrorCode.NETWORK, name, where + " failed: "
                    + SourceNames.clip(String.valueOf(e)), e);
        }
        InputStream body = new IdleTimeoutInputStream(response.body(), name, settings.readTimeout(),
                settings.remotePolicy().time());
        int status = response.statusCode();
        LOG.log(System.Logger.Level.DEBUG, () -> where + " Range: " + range + " -> " + status + ", "
                + declaredBytes(response));
        return new Sent(response, body);
    }

    /** One hop's answer and its body under the read timeout. */
    private record Sent(HttpResponse<InputStream> response, InputStream body) {
    }

    /** The body length the answer announces: its verified-to-be range, else its Content-Length. */
    private static String declaredBytes(HttpResponse<?> response) {
        return ContentRange.parse(response.headers().firstValue("Content-Range").orElse(null))
                .map(r -> r.length() + " bytes (" + r + ")")
                .or(() -> response.headers().firstValue("Content-Length").map(n -> SourceNames.clip(n) + " bytes"))
                .orElse("body length not declared");
    }

    private static boolean isRedirect(int status) {
        return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
    }

    private static URI location(String name, URI url, HttpResponse<?> response) throws IOException {
        String where = "GET " + SourceNames.redact(url) + " answered " + response.statusCode();
        String value = response.headers().firstValue("Location")
                .orElseThrow(() -> new StorageException(ErrorCode.IO_ERROR, name, where + " without a Location"));
        URI next;
        try {
            next = url.resolve(new URI(value.trim()));
        } catch (URISyntaxException e) {
            throw new StorageException(ErrorCode.IO_ERROR, name, where + " with a malformed Location");
        }
        String scheme = next.getScheme() == null ? "" : next.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("https") || scheme.equals("http")) || next.getHost() == null) {
            throw new StorageException(ErrorCode.IO_ERROR, name, where + " redirecting to an unsupported location");
        }
        if (Origin.of(url).isSecure() && scheme.equals("http")) {
            throw new StorageException(ErrorCode.IO_ERROR, name, where + " redirecting from https to plain http: "
                    + SourceNames.redact(next));
        }
        return next;
    }
}
