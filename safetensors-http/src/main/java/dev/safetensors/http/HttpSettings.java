package dev.safetensors.http;

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
 *   <li>Connection failures, timeouts, 429 and 5xx answers are retried up to {@link #maxRetries()} times with
 *       jittered exponential backoff between {@link #backoffBase()} and {@link #backoffMax()}; a
 *       {@code Retry-After} is honoured when it is not longer than {@code backoffMax}, otherwise the answer is final.</li>
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
    private final int maxRetries;
    private final Duration backoffBase;
    private final Duration backoffMax;

    private HttpSettings(Builder b) {
        this.hubEndpoint = b.hubEndpoint;
        this.token = b.token;
        this.connectTimeout = b.connectTimeout;
        this.requestTimeout = b.requestTimeout;
        this.readTimeout = b.readTimeout;
        this.maxRetries = b.maxRetries;
        this.backoffBase = b.backoffBase;
        this.backoffMax = b.backoffMax;
    }

    /**
     * @return defaults, with the Hub endpoint from {@code HF_ENDPOINT} and the token from {@code HF_TOKEN} when set
     * @throws IllegalArgumentException if {@code HF_ENDPOINT} is not an absolute http(s) URL
     */
    public static HttpSettings fromEnvironment() {
        Builder b = builder();
        String endpoint = System.getenv("HF_ENDPOINT");
        if (endpoint != null && !endpoint.isBlank()) {
            b.hubEndpoint(URI.create(endpoint.trim()));
        }
        String token = System.getenv("HF_TOKEN");
        if (token != null && !token.isBlank()) {
            b.token(token.trim());
        }
        return b.build();
    }

    /** @return a builder with the defaults: public Hub, no token, 10 s connect, 30 s request, 30 s read, 4 retries */
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
        b.maxRetries = maxRetries;
        b.backoffBase = backoffBase;
        b.backoffMax = backoffMax;
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
        return maxRetries;
    }

    /** @return the first backoff step */
    public Duration backoffBase() {
        return backoffBase;
    }

    /** @return the longest wait between two attempts, and the longest {@code Retry-After} honoured */
    public Duration backoffMax() {
        return backoffMax;
    }

    @Override
    public String toString() {
        return "HttpSettings[hubEndpoint=" + hubEndpoint + ", token=" + (token == null ? "none" : "set")
                + ", connectTimeout=" + connectTimeout + ", requestTimeout=" + requestTimeout
                + ", readTimeout=" + readTimeout + ", maxRetries=" + maxRetries
                + ", backoff=" + backoffBase + ".." + backoffMax + "]";
    }

    /** Builds {@link HttpSettings}; each setter validates its argument. Not thread-safe. */
    public static final class Builder {
        private URI hubEndpoint = DEFAULT_HUB_ENDPOINT;
        private String token;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration requestTimeout = Duration.ofSeconds(30);
        private Duration readTimeout = Duration.ofSeconds(30);
        private int maxRetries = 4;
        private Duration backoffBase = Duration.ofMillis(250);
        private Duration backoffMax = Duration.ofSeconds(20);

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
         * @param token a Hub access token, or {@code null} for none
         * @return this builder
         */
        public Builder token(String token) {
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
            this.maxRetries = retries;
            return this;
        }

        /**
         * @param base the first backoff step, positive
         * @param max  the longest wait between attempts and the longest {@code Retry-After} honoured, {@code >= base}
         * @return this builder
         */
        public Builder backoff(Duration base, Duration max) {
            positive(base, "backoff base");
            positive(max, "backoff max");
            if (max.compareTo(base) < 0) {
                throw new IllegalArgumentException("backoff max " + max + " is below base " + base);
            }
            this.backoffBase = base;
            this.backoffMax = max;
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
