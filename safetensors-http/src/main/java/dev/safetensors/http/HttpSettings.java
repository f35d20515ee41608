package dev.safetensors.http;

import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.spi.SourceNames;

import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * How HTTP sources connect: the Hugging Face Hub endpoint and token, timeouts, and the retry budget.
 *
 * <ul>
 *   <li>The token is sent as {@code Authorization: Bearer} only to the Hub endpoint's origin (scheme, host and
 *       port), never after a redirect has left that origin, and never over plain {@code http} to a host other than
 *       a loopback address. It is never part of {@link #toString()} nor of any message.</li>
 *   <li>The connect timeout bounds opening a connection; the request timeout bounds the wait for a response's
 *       status and headers; the read timeout bounds each wait for more body bytes, so a server that stalls
 *       mid-body cannot hold a read forever ({@code java.net.http}'s own timeout ends when the headers arrive).
 *       Time the caller spends between reads does not count.</li>
 *   <li>Retries and deadlines follow {@link #remotePolicy()}, the policy every remote backend shares: connection
 *       failures, timeouts, 408, 429, 500, 502, 503 and 504 are retried up to {@link #maxRetries()} times with
 *       jittered exponential backoff between {@link #backoffBase()} and {@link #backoffMax()}; a
 *       {@code Retry-After} longer than {@link RemotePolicy#retryAfterCap()} makes the answer final.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe.
 */
public final class HttpSettings {
    /** The public Hub, used when {@code HF_ENDPOINT} is not set. */
    public static final URI DEFAULT_HUB_ENDPOINT = URI.create("https://huggingface.co");

    private final URI hubEndpoint;
    private final String token;
    private final Duration connectTimeout;
    private final Duration requestTimeout;
    private final Duration readTimeout;
    private final RemotePolicy policy;

    private HttpSettings(Builder b) {
        this.hubEndpoint = b.hubEndpoint;
        this.token = b.token;
        this.connectTimeout = b.connectTimeout;
        this.requestTimeout = b.requestTimeout;
        this.readTimeout = b.readTimeout;
        this.policy = b.policy;
    }

    /**
     * @return defaults, with the Hub endpoint from {@code HF_ENDPOINT} and the token from {@code HF_TOKEN} when set
     * @throws IllegalArgumentException if {@code HF_ENDPOINT} is not an absolute http(s) URL, or {@code HF_TOKEN}
     *                                  holds a character not allowed in an HTTP header (the message never quotes it)
     */
    public static HttpSettings fromEnvironment() {
        return fromEnvironment(System.getenv());
    }

    static HttpSettings fromEnvironment(java.util.Map<String, String> env) {
        Builder b = builder();
        String endpoint = env.get("HF_ENDPOINT");
        if (endpoint != null && !endpoint.isBlank()) {
            URI uri;
            try {
                uri = new URI(endpoint.trim());
            } catch (java.net.URISyntaxException e) {
                throw new IllegalArgumentException("HF_ENDPOINT is not a URL: " + SourceNames.clip(endpoint.trim()));
            }
            b.hubEndpoint(uri);
        }
        String token = env.get("HF_TOKEN");
        if (token != null && !token.isBlank()) {
            b.token(token.trim());
        }
        return b.build();
    }

    /**
     * @return a builder with the defaults: public Hub, no token, 10 s connect, 30 s request, 30 s read, and
     *         {@link RemotePolicy#DEFAULT} (4 retries)
     */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder holding these settings, to change some of them */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.hubEndpoint = hubEndpoint;
        b.token = token;
        b.connectTimeout = connectTimeout;
        b.requestTimeout = requestTimeout;
        b.readTimeout = readTimeout;
        b.policy = policy;
        return b;
    }

    /** @return the Hub endpoint that {@code hf://} URIs resolve against, without a trailing slash */
    public URI hubEndpoint() {
        return hubEndpoint;
    }

    /** @return whether a token is configured (the token itself is never exposed) */
    public boolean hasToken() {
        return token != null;
    }

    String token() {
        return token;
    }

    /** @return the connect timeout */
    public Duration connectTimeout() {
        return connectTimeout;
    }

    /** @return the time allowed for a response's status and headers to arrive */
    public Duration requestTimeout() {
        return requestTimeout;
    }

    /** @return the longest wait for more body bytes while a read is blocked */
    public Duration readTimeout() {
        return readTimeout;
    }

    /** @return how many times a failed request is retried */
    public int maxRetries() {
        return policy.maxAttempts() - 1;
    }

    /** @return the first backoff step */
    public Duration backoffBase() {
        return policy.backoffBase();
    }

    /** @return the longest wait between two attempts */
    public Duration backoffMax() {
        return policy.backoffMax();
    }

    /** @return the retries, {@code Retry-After} cap and deadlines of every request */
    public RemotePolicy remotePolicy() {
        return policy;
    }

    @Override
    public String toString() {
        return "HttpSettings[hubEndpoint=" + hubEndpoint + ", token=" + (token == null ? "none" : "set")
                + ", connectTimeout=" + connectTimeout + ", requestTimeout=" + requestTimeout
                + ", readTimeout=" + readTimeout + ", " + policy + "]";
    }

    /** Builds {@link HttpSettings}; each setter validates its argument. Not thread-safe. */
    public static final class Builder {
        private URI hubEndpoint = DEFAULT_HUB_ENDPOINT;
        private String token;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration requestTimeout = Duration.ofSeconds(30);
        private Duration readTimeout = Duration.ofSeconds(30);
        private RemotePolicy policy = RemotePolicy.DEFAULT;

        private Builder() {
        }

        /**
         * @param endpoint an absolute {@code http} or {@code https} URL with a host and no user information,
         *                 query or fragment, such as {@code https://huggingface.co} or a mirror
         * @return this builder
         * @throws IllegalArgumentException if the URL is not of that form
         */
        public Builder hubEndpoint(URI endpoint) {
            Objects.requireNonNull(endpoint, "endpoint");
            String scheme = endpoint.getScheme() == null ? "" : endpoint.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("http") || scheme.equals("https")) || endpoint.getHost() == null
                    || endpoint.getRawUserInfo() != null || endpoint.getRawQuery() != null
                    || endpoint.getRawFragment() != null) {
                throw new IllegalArgumentException("the Hub endpoint must be an http(s) URL with a host and no "
                        + "user information, query or fragment: " + SourceNames.redact(endpoint));
            }
            String s = endpoint.toString();
            while (s.endsWith("/")) {
                s = s.substring(0, s.length() - 1);
            }
            this.hubEndpoint = URI.create(s);
            return this;
        }

        /**
         * @param token a Hub access token of visible ASCII characters, or {@code null} for none
         * @return this builder
         * @throws IllegalArgumentException if the token holds a character not allowed in an HTTP header; the
         *                                  message does not quote it
         */
        public Builder token(String token) {
            if (token != null && !token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
                // The token is never quoted: a message may reach a log, a terminal or a bug report.
                throw new IllegalArgumentException("HF_TOKEN contains a character not allowed in an HTTP header"
                        + " (a control character, a space or a non-ASCII character)");
            }
            this.token = token == null || token.isBlank() ? null : token;
            return this;
        }

        /**
         * @param timeout a positive duration
         * @return this builder
         */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive(timeout, "connectTimeout");
            return this;
        }

        /**
         * @param timeout a positive duration
         * @return this builder
         */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = positive(timeout, "requestTimeout");
            return this;
        }

        /**
         * @param timeout the longest wait for more body bytes while a read is blocked, positive
         * @return this builder
         */
        public Builder readTimeout(Duration timeout) {
            this.readTimeout = positive(timeout, "readTimeout");
            return this;
        }

        /**
         * @param retries how many times a failed request is retried, 0 to 10
         * @return this builder
         */
        public Builder maxRetries(int retries) {
            if (retries < 0 || retries > 10) {
                throw new IllegalArgumentException("maxRetries must be between 0 and 10: " + retries);
            }
            this.policy = policy.toBuilder().maxAttempts(retries + 1).build();
            return this;
        }

        /**
         * @param base the first backoff step, positive
         * @param max  the longest wait between attempts, {@code >= base}
         * @return this builder
         */
        public Builder backoff(Duration base, Duration max) {
            this.policy = policy.toBuilder().backoff(base, max).build();
            return this;
        }

        /**
         * @param policy retries, {@code Retry-After} cap, deadlines and time source, replacing what
         *               {@link #maxRetries} and {@link #backoff} set
         * @return this builder
         */
        public Builder remotePolicy(RemotePolicy policy) {
            this.policy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** @return the settings */
        public HttpSettings build() {
            return new HttpSettings(this);
        }

        private static Duration positive(Duration d, String what) {
            Objects.requireNonNull(d, what);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive: " + d);
            }
            return d;
        }
    }
}
