package dev.safetensors.http;

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
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Makes one logical GET: follows at most {@value #MAX_REDIRECTS} redirects itself (the client is built with
 * {@link HttpClient.Redirect#NEVER}, so every hop is seen and the token decided hop by hop by {@link TokenPolicy}),
 * retries each hop on connection failures, timeouts, 429 and 5xx as {@link RetryPolicy} says, and logs one
 * {@code DEBUG} line per HTTP exchange (method, redacted URL, range, status, declared bytes) and one
 * {@code WARNING} per retry. Redirect loops and chains that are too long fail with an {@link IOException}.
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
    private final RetryPolicy retries;

    HttpTransport(HttpSettings settings) {
        this.settings = settings;
        this.client = HttpClient.newBuilder()
                .connectTimeout(settings.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
        this.tokens = new TokenPolicy(settings);
        this.retries = new RetryPolicy(settings);
    }

    HttpSettings settings() {
        return settings;
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
            HttpRequest request = request(name, url, range, pin, leftHub);
            Sent sent = sendWithRetries(name, request, range, counter);
            HttpResponse<InputStream> response = sent.response();
            commit = commit != null ? commit : response.headers().firstValue("X-Repo-Commit").orElse(null);
            linkedEtag = linkedEtag != null ? linkedEtag : response.headers().firstValue("X-Linked-Etag").orElse(null);
            if (!isRedirect(response.statusCode())) {
                return new FinalResponse(response, sent.body(), url, sent.attempts(), commit, linkedEtag);
            }
            finishRedirectBody(sent.body());
            URI next = location(name, url, response);
            if (redirects == MAX_REDIRECTS) {
                throw new IOException(name + ": more than " + MAX_REDIRECTS + " redirects, the last one to "
                        + SourceNames.redact(next));
            }
            if (!visited.add(next.toString())) {
                throw new IOException(name + ": redirect loop: " + SourceNames.redact(next) + " was visited before");
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

    private HttpRequest request(String name, URI url, String range, ETagPin pin, boolean leftHub) throws IOException {
        Origin origin = Origin.of(url);
        HttpRequest.Builder b;
        try {
            b = HttpRequest.newBuilder(url);
        } catch (IllegalArgumentException e) {
            throw new IOException(name + ": cannot request " + SourceNames.redact(url), e);
        }
        b.GET().timeout(settings.requestTimeout())
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
        tokens.authorization(url, leftHub).ifPresent(v -> b.header("Authorization", v));
        return b.build();
    }

    private Sent sendWithRetries(String name, HttpRequest request, String range, RequestCounter counter)
            throws IOException {
        String where = "GET " + SourceNames.redact(request.uri());
        for (int attempt = 1; ; attempt++) {
            HttpResponse<InputStream> response;
            counter.exchange();
            try {
                // Every body is streamed, so that closing it early aborts the exchange instead of draining it.
                response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException(name + ": interrupted during " + where);
            } catch (IOException e) {
                LOG.log(System.Logger.Level.DEBUG, () -> where + " Range: " + range + " -> " + e);
                if (attempt > retries.maxRetries()) {
                    throw new IOException(name + ": " + where + " failed after " + attempt + " attempts: " + e, e);
                }
                pause(name, where, attempt, retries.delay(attempt, null, Instant.now()).orElseThrow(), e.toString());
                continue;
            }
            InputStream body = new IdleTimeoutInputStream(response.body(), name, settings.readTimeout());
            int status = response.statusCode();
            LOG.log(System.Logger.Level.DEBUG, () -> where + " Range: " + range + " -> " + status + ", "
                    + declaredBytes(response));
            if (RetryPolicy.isRetryable(status) && attempt <= retries.maxRetries()) {
                Optional<Duration> wait = retries.delay(attempt,
                        response.headers().firstValue("Retry-After").orElse(null), Instant.now());
                if (wait.isPresent()) {
                    discard(body);
                    pause(name, where, attempt, wait.get(), "status " + status);
                    continue;
                }
            }
            return new Sent(response, body, attempt);
        }
    }

    /** One hop's answer, its body under the read timeout, and the attempts it took. */
    private record Sent(HttpResponse<InputStream> response, InputStream body, int attempts) {
    }

    private static void pause(String name, String where, int attempt, Duration wait, String why)
            throws InterruptedIOException {
        LOG.log(System.Logger.Level.WARNING, () -> name + ": " + where + " attempt " + attempt + " failed (" + why
                + "), retrying in " + wait.toMillis() + " ms");
        try {
            Thread.sleep(Math.max(1, wait.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(name + ": interrupted while waiting to retry " + where);
        }
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
                .orElseThrow(() -> new IOException(name + ": " + where + " without a Location"));
        URI next;
        try {
            next = url.resolve(new URI(value.trim()));
        } catch (URISyntaxException e) {
            throw new IOException(name + ": " + where + " with a malformed Location");
        }
        String scheme = next.getScheme() == null ? "" : next.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("https") || scheme.equals("http")) || next.getHost() == null) {
            throw new IOException(name + ": " + where + " redirecting to an unsupported location");
        }
        if (Origin.of(url).isSecure() && scheme.equals("http")) {
            throw new IOException(name + ": " + where + " redirecting from https to plain http: "
                    + SourceNames.redact(next));
        }
        return next;
    }
}
