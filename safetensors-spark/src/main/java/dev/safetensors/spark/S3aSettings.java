package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import dev.safetensors.spi.SourceNames;
import org.apache.hadoop.conf.Configuration;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The connection settings Hadoop's S3A connector takes from {@code fs.s3a.*}, as they apply to one bucket: a
 * per-bucket {@code fs.s3a.bucket.BUCKET.KEY} before {@code fs.s3a.KEY}, as S3A resolves them. Only what the user set
 * counts: a value that comes from Hadoop's {@code core-default.xml} (S3A's default provider list, its
 * {@code path.style.access=false}) is taken as unset, so that the library's own defaults (the AWS SDK's chain,
 * path-style addressing for a custom endpoint) apply where the user said nothing.
 *
 * <p>Used as a key: equal settings share one client. {@link #toString()} never shows a key or token.
 *
 * @param endpoint     the endpoint URL ({@code fs.s3a.endpoint}, {@code https://} prefixed to a bare host, or
 *                     {@code http://} when {@code fs.s3a.connection.ssl.enabled=false}), or {@code null}
 * @param pathStyle    {@code fs.s3a.path.style.access}, or {@code null} when not set
 * @param region       {@code fs.s3a.endpoint.region}, or {@code null}
 * @param accessKey    {@code fs.s3a.access.key}, or {@code null}
 * @param secretKey    {@code fs.s3a.secret.key}, or {@code null}
 * @param sessionToken {@code fs.s3a.session.token}, or {@code null}
 * @param providers    the class names of {@code fs.s3a.aws.credentials.provider}, or {@code null} when not set
 */
record S3aSettings(URI endpoint, Boolean pathStyle, String region, String accessKey, String secretKey,
                   String sessionToken, List<String> providers) {
    /** Where Hadoop's own defaults come from: a value only they give is not the user's. */
    private static final String DEFAULTS = "core-default.xml";

    /**
     * @param conf   the Hadoop configuration
     * @param bucket the bucket the settings are for
     * @return the settings the user gave for that bucket
     * @throws StorageException {@link ErrorCode#INVALID_ENDPOINT} for an endpoint that is not an http(s) URL or
     *                          carries user information, or a path style that is neither {@code true} nor
     *                          {@code false}; the message names the setting, never its value
     */
    static S3aSettings of(Configuration conf, String bucket) throws StorageException {
        Lookup at = new Lookup(conf, bucket);
        String host = at.value("endpoint");
        String ssl = at.value("connection.ssl.enabled");
        URI endpoint = host == null ? null : endpoint(host, ssl == null || !ssl.equalsIgnoreCase("false"), at);
        String style = at.value("path.style.access");
        Boolean pathStyle = null;
        if (style != null) {
            switch (style.toLowerCase(Locale.ROOT)) {
                case "true" -> pathStyle = Boolean.TRUE;
                case "false" -> pathStyle = Boolean.FALSE;
                default -> throw invalid(at.name("path.style.access"), "is neither true nor false");
            }
        }
        String list = at.value("aws.credentials.provider");
        List<String> providers = null;
        if (list != null) {
            providers = new ArrayList<>();
            for (String name : list.split(",")) {
                if (!name.isBlank()) {
                    providers.add(name.trim());
                }
            }
        }
        return new S3aSettings(endpoint, pathStyle, at.value("endpoint.region"), at.secret("access.key"),
                at.secret("secret.key"), at.secret("session.token"), providers == null ? null : List.copyOf(providers));
    }

    /**
     * @param conf     the Hadoop configuration
     * @param location an {@code s3://} location (the Spark source's form of {@code s3a://})
     * @return the settings the user gave for its bucket
     * @throws StorageException as {@link #of(Configuration, String)}
     */
    static S3aSettings of(Configuration conf, dev.safetensors.Location location) throws StorageException {
        return of(conf, location.uri().map(URI::getAuthority).orElse(null));
    }

    /** @return whether the user set nothing here: the library's S3 backend then applies as installed */
    boolean isEmpty() {
        return endpoint == null && pathStyle == null && region == null && accessKey == null && secretKey == null
                && sessionToken == null && providers == null;
    }

    private static URI endpoint(String value, boolean ssl, Lookup at) throws StorageException {
        String text = value.contains("://") ? value : (ssl ? "https://" : "http://") + value;
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw invalid(at.name("endpoint"), "is not an http(s) URL or host");
        }
        String scheme = uri.getScheme();
        if (scheme == null || uri.getHost() == null
                || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))) {
            throw invalid(at.name("endpoint"), "is not an http(s) URL or host");
        }
        if (SourceNames.mayCarryUserInfo(text)) {
            throw invalid(at.name("endpoint"), "carries user information (a name or password before '@'), which is"
                    + " never sent nor shown: give the keys as fs.s3a.access.key and fs.s3a.secret.key");
        }
        return uri;
    }

    /** Not quoted: an endpoint may carry a password, and the keys are secrets. */
    private static StorageException invalid(String key, String why) {
        return new StorageException(ErrorCode.INVALID_ENDPOINT, "s3a", "the Hadoop setting " + key + " " + why);
    }

    @Override
    public String toString() {
        return "S3aSettings[endpoint=" + (endpoint == null ? null : SourceNames.redact(endpoint)) + ", pathStyle="
                + pathStyle + ", region=" + region + ", keys=" + (accessKey != null || secretKey != null ? "set"
                : "unset") + ", sessionToken=" + (sessionToken != null ? "set" : "unset") + ", providers="
                + providers + "]";
    }

    /** Reads one bucket's settings: the per-bucket key first, then the general one. */
    private static final class Lookup {
        private final Configuration conf;
        private final String bucket;

        Lookup(Configuration conf, String bucket) {
            this.conf = Objects.requireNonNull(conf, "conf");
            this.bucket = bucket;
        }

        /** @return the key that gives this setting for the bucket */
        String name(String key) {
            String perBucket = "fs.s3a.bucket." + bucket + "." + key;
            return bucket != null && conf.get(perBucket) != null ? perBucket : "fs.s3a." + key;
        }

        /** @return the trimmed value the user set, or {@code null} */
        String value(String key) {
            String name = name(key);
            String value = conf.getTrimmed(name);
            if (value == null || value.isEmpty()) {
                return null;
            }
            String[] sources = conf.getPropertySources(name);
            if (sources != null && sources.length > 0 && Arrays.stream(sources).allMatch(DEFAULTS::equals)) {
                return null;
            }
            return value;
        }

        /**
         * @return a secret as S3A reads it ({@link Configuration#getPassword}: a credential provider first, then
         *         the configuration), or {@code null}
         */
        String secret(String key) throws StorageException {
            String name = "fs.s3a." + key;
            try {
                // the bucket's own first, from a credential provider too, as S3A looks secrets up
                if (bucket != null) {
                    String own = text(conf.getPassword("fs.s3a.bucket." + bucket + "." + key));
                    if (own != null) {
                        return own;
                    }
                }
                return text(conf.getPassword(name));
            } catch (IOException e) {
                // the credential provider's failure; its message names the store, not the secret
                throw new StorageException(ErrorCode.ACCESS_DENIED, "s3a", "cannot read " + name + " from the Hadoop"
                        + " credential providers: " + e.getClass().getSimpleName(), e);
            }
        }

        private static String text(char[] value) {
            String text = value == null ? null : new String(value).trim();
            return text == null || text.isEmpty() ? null : text;
        }
    }
}
