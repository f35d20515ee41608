package dev.safetensors.azure;

import com.azure.core.credential.TokenCredential;
import com.azure.core.http.HttpClient;
import com.azure.core.http.jdk.httpclient.JdkHttpClientBuilder;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import com.azure.storage.common.policy.RequestRetryOptions;
import com.azure.storage.common.policy.RetryPolicyType;
import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import dev.safetensors.spi.SourceNames;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How an {@link AzureSourceProvider} builds its {@code BlobServiceClient}s, from the variables Azure users already
 * set or from an application's own settings. Immutable; {@link #toString()} never shows a secret.
 *
 * <p>The credential, first that applies: a connection string; the account key; a SAS token; Entra ID through
 * azure-identity's {@code DefaultAzureCredential} when that library is present (and not turned off); anonymous access
 * (public containers). The account is the location's ({@code abfss://CONTAINER@ACCOUNT...}) or the configured one
 * ({@code az://}); a key, SAS or endpoint configured for one account is never sent to another.
 *
 * <p>Clients built here send through the JDK's {@code java.net.http.HttpClient} (HTTP/1.1) and make one attempt per
 * request: retries are the shared {@link dev.safetensors.spi.RemotePolicy}'s, which never sleeps longer than its cap
 * on a server's {@code Retry-After}.
 */
public final class AzureClientOptions {
    /** A connection string, as the portal and Azurite give it; takes precedence over every other setting. */
    public static final String CONNECTION_STRING = "AZURE_STORAGE_CONNECTION_STRING";
    /** The storage account of {@code az://} and {@code azure://} locations. */
    public static final String ACCOUNT = "AZURE_STORAGE_ACCOUNT";
    /** The account's shared key. */
    public static final String KEY = "AZURE_STORAGE_KEY";
    /** A SAS token for the account (with or without its leading {@code ?}). */
    public static final String SAS_TOKEN = "AZURE_STORAGE_SAS_TOKEN";
    /**
     * The account's blob endpoint when it is not {@code https://ACCOUNT.blob.core.windows.net}: Azurite
     * ({@code http://127.0.0.1:10000/devstoreaccount1}), a sovereign cloud, a private endpoint.
     */
    public static final String BLOB_ENDPOINT = "AZURE_STORAGE_BLOB_ENDPOINT";
    /** The DNS suffix of the public cloud's storage endpoints, used when neither endpoint nor location gives one. */
    public static final String DEFAULT_ENDPOINT_SUFFIX = "core.windows.net";

    /** No setting at all: anonymous access, or Entra ID when azure-identity is present, for abfss locations. */
    public static final AzureClientOptions NONE = builder().build();

    private final String connectionString;
    private final String account;
    private final String key;
    private final String sasToken;
    private final String endpoint;
    private final boolean entraId;

    private AzureClientOptions(Builder b) {
        this.connectionString = b.connectionString;
        this.account = b.account;
        this.key = b.key;
        this.sasToken = b.sasToken;
        this.endpoint = b.endpoint;
        this.entraId = b.entraId;
    }

    /** @return a builder with nothing set and Entra ID on */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * @param env the environment, usually {@link System#getenv()}
     * @return the options the variables {@value #CONNECTION_STRING}, {@value #ACCOUNT}, {@value #KEY},
     *         {@value #SAS_TOKEN} and {@value #BLOB_ENDPOINT} describe; blank ones are ignored
     */
    public static AzureClientOptions fromEnvironment(Map<String, String> env) {
        return builder()
                .connectionString(env.get(CONNECTION_STRING))
                .account(env.get(ACCOUNT))
                .key(env.get(KEY))
                .sasToken(env.get(SAS_TOKEN))
                .endpoint(env.get(BLOB_ENDPOINT))
                .build();
    }

    /**
     * @return the options of {@link #fromEnvironment} over the process environment, each variable overridden by a Java
     *         system property of the same name when one is set (as the Azure SDK's own configuration does), so a
     *         program or a test can configure the default provider without changing its environment
     */
    public static AzureClientOptions fromSystem() {
        Map<String, String> merged = new HashMap<>(System.getenv());
        for (String name : List.of(CONNECTION_STRING, ACCOUNT, KEY, SAS_TOKEN, BLOB_ENDPOINT)) {
            String property = System.getProperty(name);
            if (property != null) {
                merged.put(name, property);
            }
        }
        return fromEnvironment(merged);
    }

    /** @return the configured account, or {@code null} */
    public String account() {
        return account;
    }

    /** @return which credential applies to the configured account, for messages: never the secret itself */
    String credentialKind() {
        if (connectionString != null) {
            return "connection string";
        }
        if (key != null) {
            return "shared key";
        }
        if (sasToken != null) {
            return "SAS token";
        }
        return entraId && EntraId.available() ? "Entra ID (DefaultAzureCredential)" : "anonymous";
    }

    /**
     * Builds the client for one account.
     *
     * @param location the location to read; its account, if it names one, decides which settings apply
     * @return a client that makes one attempt per request
     * @throws StorageException {@link ErrorCode#INVALID_SOURCE} if no account is known for an {@code az://}
     *                          location, or the connection string is for another account than the location's;
     *                          {@link ErrorCode#INVALID_ENDPOINT} if the endpoint or connection string is malformed
     */
    BlobServiceClient buildClient(AzureLocation location) throws StorageException {
        String name = location.name();
        BlobServiceClientBuilder builder = new BlobServiceClientBuilder()
                .httpClient(httpClient())
                .retryOptions(new RequestRetryOptions(RetryPolicyType.FIXED, 1, (Integer) null, null, null, null));
        if (connectionString != null) {
            String withUser = endpointWithUserInfo(connectionString);
            if (withUser != null) {
                throw new StorageException(ErrorCode.INVALID_ENDPOINT, name, "the " + withUser + " of "
                        + CONNECTION_STRING + " carries user information (a name or password before '@'), which is"
                        + " never sent nor shown: give the credential as the connection string's AccountKey or"
                        + " SharedAccessSignature");
            }
            try {
                builder.connectionString(connectionString);
            } catch (RuntimeException e) {
                // The SDK's message may quote the string, key included: it is not passed on.
                throw new StorageException(ErrorCode.INVALID_ENDPOINT, name, CONNECTION_STRING
                        + " is not a valid connection string (its value is not shown)");
            }
            BlobServiceClient client;
            try {
                client = builder.buildClient();
            } catch (RuntimeException e) {
                throw new StorageException(ErrorCode.INVALID_ENDPOINT, name, "no client can be built from "
                        + CONNECTION_STRING + " (its value is not shown)");
            }
            if (location.account() != null && !location.account().equals(client.getAccountName())) {
                throw new StorageException(ErrorCode.INVALID_SOURCE, name, "the connection string is for account '"
                        + client.getAccountName() + "', the location names account '" + location.account() + "'");
            }
            return client;
        }
        String wanted = location.account() != null ? location.account() : account;
        if (wanted == null) {
            throw new StorageException(ErrorCode.INVALID_SOURCE, name, "no storage account for " + location.scheme()
                    + ":// locations: set " + ACCOUNT + " (with " + KEY + " or " + SAS_TOKEN + ") or "
                    + CONNECTION_STRING + ", or write abfss://CONTAINER@ACCOUNT.dfs.core.windows.net/PATH");
        }
        // Settings given for the configured account are never used for another one the location names.
        boolean configured = account == null || account.equals(wanted);
        String url = configured && endpoint != null ? endpoint : "https://" + wanted + ".blob."
                + (location.endpointSuffix() != null ? location.endpointSuffix() : DEFAULT_ENDPOINT_SUFFIX);
        try {
            builder.endpoint(url);
        } catch (RuntimeException e) {
            throw new StorageException(ErrorCode.INVALID_ENDPOINT, name, "the blob endpoint '" + shown(url)
                    + "' is not a usable URL");
        }
        if (configured && key != null) {
            builder.credential(new StorageSharedKeyCredential(wanted, key));
        } else if (configured && sasToken != null) {
            builder.sasToken(sasToken);
        } else if (entraId && EntraId.available()) {
            TokenCredential credential = EntraId.defaultCredential();
            builder.credential(credential);
        }
        try {
            return builder.buildClient();
        } catch (RuntimeException e) {
            // such as a bearer token refused over http: the SDK's message names no secret here
            throw new StorageException(ErrorCode.INVALID_ENDPOINT, name, "no client can be built for the blob"
                    + " endpoint '" + shown(url) + "': " + dev.safetensors.spi.SourceNames.clip(
                    String.valueOf(e.getMessage())));
        }
    }

    /** @return the JDK HttpClient binding on HTTP/1.1 (Blob Storage speaks nothing newer), no read-timeout thread hop */
    static HttpClient httpClient() {
        return new JdkHttpClientBuilder(java.net.http.HttpClient.newBuilder()
                .version(java.net.http.HttpClient.Version.HTTP_1_1))
                .connectionTimeout(Duration.ofSeconds(10))
                .build();
    }

    /**
     * @return the name of the first endpoint setting of a connection string ({@code BlobEndpoint=...}, or any other
     *         {@code ...Endpoint}) that {@linkplain SourceNames#mayCarryUserInfo may carry user information}, or
     *         {@code null}
     */
    static String endpointWithUserInfo(String connectionString) {
        for (String part : connectionString.split(";")) {
            int eq = part.indexOf('=');
            String key = eq < 0 ? "" : part.substring(0, eq).trim();
            if (key.toLowerCase(Locale.ROOT).endsWith("endpoint")
                    && SourceNames.mayCarryUserInfo(part.substring(eq + 1))) {
                return SourceNames.clip(key);
            }
        }
        return null;
    }

    /** @return an endpoint without its query (where a SAS would sit) */
    private static String shown(String url) {
        int q = url.indexOf('?');
        return dev.safetensors.spi.SourceNames.clip(q < 0 ? url : url.substring(0, q) + "?…");
    }

    /** @return the settings, secrets replaced by whether they are set */
    @Override
    public String toString() {
        return "AzureClientOptions[account=" + account + ", endpoint=" + (endpoint == null ? null : shown(endpoint))
                + ", credential=" + credentialKind() + "]";
    }

    /** Builds {@link AzureClientOptions}. Blank values count as not set. */
    public static final class Builder {
        private String connectionString;
        private String account;
        private String key;
        private String sasToken;
        private String endpoint;
        private boolean entraId = true;

        private Builder() {
        }

        /**
         * @param connectionString a storage connection string, or {@code null}
         * @return this builder
         */
        public Builder connectionString(String connectionString) {
            this.connectionString = blankToNull(connectionString);
            return this;
        }

        /**
         * @param account the storage account of {@code az://} locations, or {@code null}
         * @return this builder
         */
        public Builder account(String account) {
            String a = blankToNull(account);
            this.account = a == null ? null : a.toLowerCase(Locale.ROOT);
            return this;
        }

        /**
         * @param key the account's shared key (base64), or {@code null}
         * @return this builder
         */
        public Builder key(String key) {
            this.key = blankToNull(key);
            return this;
        }

        /**
         * @param sasToken a SAS token, with or without its leading {@code ?}, or {@code null}
         * @return this builder
         */
        public Builder sasToken(String sasToken) {
            String s = blankToNull(sasToken);
            this.sasToken = s != null && s.startsWith("?") ? s.substring(1) : s;
            return this;
        }

        /**
         * @param endpoint the configured account's blob endpoint ({@code http(s)://HOST[:PORT][/ACCOUNT]}), or
         *                 {@code null} for {@code https://ACCOUNT.blob.core.windows.net}
         * @return this builder
         * @throws IllegalArgumentException if it is not an absolute http or https URL, or carries user information
         *                                  (refused without quoting it)
         */
        public Builder endpoint(String endpoint) {
            String e = blankToNull(endpoint);
            if (e != null && SourceNames.mayCarryUserInfo(e)) {
                // not quoted: the part before '@' may be a password
                throw new IllegalArgumentException("the blob endpoint carries user information (a name or password"
                        + " before '@'), which is never sent nor shown: give the credential as " + KEY + " or "
                        + SAS_TOKEN);
            }
            if (e != null) {
                try {
                    URI uri = new URI(e);
                    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
                    if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
                        throw new IllegalArgumentException("the blob endpoint '" + shown(e)
                                + "' is not an http(s)://HOST URL");
                    }
                } catch (URISyntaxException x) {
                    throw new IllegalArgumentException("the blob endpoint '" + shown(e) + "' is not a URL");
                }
            }
            this.endpoint = e;
            return this;
        }

        /**
         * @param on whether an account without a key or SAS signs in with {@code DefaultAzureCredential} when
         *           azure-identity is present (on by default)
         * @return this builder
         */
        public Builder entraId(boolean on) {
            this.entraId = on;
            return this;
        }

        /** @return the options */
        public AzureClientOptions build() {
            return new AzureClientOptions(this);
        }

        private static String blankToNull(String s) {
            return s == null || s.isBlank() ? null : s.trim();
        }
    }

}
