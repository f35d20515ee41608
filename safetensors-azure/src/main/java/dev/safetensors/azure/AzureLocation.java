package dev.safetensors.azure;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.spi.SourceNames;

import java.net.URI;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One blob, as Azure users write its location:
 *
 * <ul>
 *   <li>{@code az://CONTAINER/BLOB} and {@code azure://CONTAINER/BLOB} (fsspec, DuckDB): the storage account comes
 *       from the configuration ({@link AzureClientOptions});</li>
 *   <li>{@code abfss://CONTAINER@ACCOUNT.dfs.core.windows.net/PATH} and {@code abfs://…} (Hadoop, Spark): the
 *       account and the cloud (the host's suffix after {@code .dfs.} or {@code .blob.}) come from the host. Both are
 *       read over HTTPS from the account's blob endpoint, which serves the same data as its DFS endpoint.</li>
 * </ul>
 *
 * <p>A query of {@code versionid=ID} or {@code snapshot=TIMESTAMP} (not both, nothing else) reads that version or
 * snapshot. The blob name is the percent-decoded path without its leading slash.
 *
 * @param scheme         the scheme, lower case: {@code az}, {@code azure}, {@code abfss} or {@code abfs}
 * @param account        the storage account named by the location, or {@code null} for {@code az://} and
 *                       {@code azure://}
 * @param endpointSuffix the cloud's DNS suffix from an {@code abfss://} host ({@code core.windows.net}), or
 *                       {@code null}
 * @param container      the container
 * @param blob           the blob name
 * @param versionId      the version asked for, or {@code null}
 * @param snapshot       the snapshot asked for, or {@code null}
 */
public record AzureLocation(String scheme, String account, String endpointSuffix, String container, String blob,
                            String versionId, String snapshot) {
    /** The longest blob name Azure accepts, in characters. */
    private static final int MAX_BLOB_NAME = 1024;
    private static final Pattern CONTAINER = Pattern.compile("\\$root|\\$web|\\$logs|[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){2,62}");
    private static final Pattern ACCOUNT = Pattern.compile("[a-z0-9]{3,24}");
    private static final Pattern VERSION = Pattern.compile("[A-Za-z0-9:.\\-]{1,64}");

    /**
     * Checks the parts.
     *
     * @param scheme         the scheme, lower case
     * @param account        the account the location names, or {@code null}
     * @param endpointSuffix the cloud's DNS suffix, or {@code null}
     * @param container      the container
     * @param blob           the blob name
     * @param versionId      the version asked for, or {@code null}
     * @param snapshot       the snapshot asked for, or {@code null}
     * @throws IllegalArgumentException if both a version and a snapshot are given
     */
    public AzureLocation {
        Objects.requireNonNull(scheme, "scheme");
        Objects.requireNonNull(container, "container");
        Objects.requireNonNull(blob, "blob");
        if (versionId != null && snapshot != null) {
            throw new IllegalArgumentException("a location pins a version or a snapshot, not both");
        }
    }

    /**
     * @param uri any URI
     * @return whether its scheme is one of {@code az}, {@code azure}, {@code abfss}, {@code abfs}
     */
    public static boolean isAzure(URI uri) {
        String s = uri.getScheme();
        return s != null && !uri.isOpaque() && switch (s.toLowerCase(Locale.ROOT)) {
            case "az", "azure", "abfss", "abfs" -> true;
            default -> false;
        };
    }

    /**
     * @param container the container
     * @param blob      the blob name
     * @return the {@code az://CONTAINER/BLOB} location of the live blob, in the configured account
     */
    public static AzureLocation of(String container, String blob) {
        return new AzureLocation("az", null, null, container, blob, null, null);
    }

    /**
     * @param uri an {@code az://}, {@code azure://}, {@code abfss://} or {@code abfs://} URI
     * @return the location
     * @throws InvalidLocationException ({@link ErrorCode#INVALID_SOURCE}) naming the URI, without its query, and what
     *                                  is wrong with it
     */
    public static AzureLocation parse(URI uri) throws InvalidLocationException {
        return parse(uri, false);
    }

    /**
     * Reads a location that names a prefix to list, such as {@code az://CONTAINER/PREFIX/} or
     * {@code abfss://CONTAINER@ACCOUNT.dfs.core.windows.net/PATH/}: the same forms as {@link #parse(URI)}, except
     * that the path may end in {@code /} or be empty (the whole container), and no version or snapshot is accepted.
     *
     * @param uri an {@code az://}, {@code azure://}, {@code abfss://} or {@code abfs://} URI
     * @return the location, its {@link #blob()} the prefix: empty, or ending in {@code /}
     * @throws InvalidLocationException ({@link ErrorCode#INVALID_SOURCE}) naming the URI, without its query, and what
     *                                  is wrong with it
     */
    public static AzureLocation parsePrefix(URI uri) throws InvalidLocationException {
        return parse(uri, true);
    }

    private static AzureLocation parse(URI uri, boolean prefix) throws InvalidLocationException {
        String shown = SourceNames.clip(String.valueOf(uri.getScheme()) + "://"
                + String.valueOf(uri.getRawAuthority()) + String.valueOf(uri.getRawPath()));
        if (!isAzure(uri)) {
            throw invalid(shown, "not an az://, azure://, abfss:// or abfs:// location");
        }
        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        String authority = uri.getRawAuthority();
        if (authority == null || authority.isEmpty()) {
            throw invalid(shown, "the location names no container");
        }
        if (uri.getRawFragment() != null) {
            throw invalid(shown, "a fragment is not part of an Azure location");
        }
        String container;
        String account = null;
        String suffix = null;
        if (scheme.startsWith("abfs")) {
            int at = authority.indexOf('@');
            if (at <= 0) {
                throw invalid(shown, "an " + scheme + " location is " + scheme
                        + "://CONTAINER@ACCOUNT.dfs.core.windows.net/PATH");
            }
            container = authority.substring(0, at);
            String host = authority.substring(at + 1).toLowerCase(Locale.ROOT);
            int dot = host.indexOf('.');
            String service = dot < 0 ? "" : host.substring(dot + 1);
            if (!service.startsWith("dfs.") && !service.startsWith("blob.")) {
                throw invalid(shown, "the host must be ACCOUNT.dfs.<cloud suffix> or ACCOUNT.blob.<cloud suffix>");
            }
            account = host.substring(0, dot);
            suffix = service.substring(service.indexOf('.') + 1);
            if (!ACCOUNT.matcher(account).matches() || suffix.isEmpty() || !suffix.matches("[a-z0-9.\\-]+")) {
                throw invalid(shown, "'" + SourceNames.clip(host) + "' does not name a storage account host");
            }
        } else {
            if (authority.indexOf('@') >= 0 || authority.indexOf(':') >= 0) {
                throw invalid(shown, "an " + scheme + " location is " + scheme + "://CONTAINER/BLOB; the account"
                        + " comes from the configuration");
            }
            container = authority;
        }
        if (!CONTAINER.matcher(container).matches()) {
            throw invalid(shown, "'" + SourceNames.clip(container) + "' is not a container name (3 to 63 lower-case"
                    + " letters, digits and single hyphens)");
        }
        String path = uri.getPath();
        if (prefix) {
            String blob = path == null || path.isEmpty() ? "" : path.substring(1);
            if (!blob.isEmpty() && !blob.endsWith("/")) {
                blob = blob + "/";
            }
            if (blob.length() > MAX_BLOB_NAME) {
                throw invalid(shown, "a blob name has at most " + MAX_BLOB_NAME + " characters");
            }
            if (uri.getRawQuery() != null) {
                throw invalid(shown, "a prefix to list takes no versionid or snapshot");
            }
            return new AzureLocation(scheme, account, suffix, container, blob, null, null);
        }
        if (path == null || path.length() < 2) {
            throw invalid(shown, "the location names no blob");
        }
        String blob = path.substring(1);
        if (blob.endsWith("/")) {
            throw invalid(shown, "the location names a folder, not a blob");
        }
        if (blob.length() > MAX_BLOB_NAME) {
            throw invalid(shown, "a blob name has at most " + MAX_BLOB_NAME + " characters");
        }
        String versionId = null;
        String snapshot = null;
        String query = uri.getRawQuery();
        if (query != null) {
            int eq = query.indexOf('=');
            String key = eq < 0 ? query : query.substring(0, eq);
            String value = eq < 0 ? "" : query.substring(eq + 1);
            if (query.indexOf('&') >= 0 || !VERSION.matcher(value).matches()) {
                throw invalid(shown, "the only query accepted is one versionid=ID or snapshot=TIMESTAMP");
            }
            if (key.equalsIgnoreCase("versionid")) {
                versionId = value;
            } else if (key.equalsIgnoreCase("snapshot")) {
                snapshot = value;
            } else {
                throw invalid(shown, "the only query accepted is one versionid=ID or snapshot=TIMESTAMP");
            }
        }
        return new AzureLocation(scheme, account, suffix, container, blob, versionId, snapshot);
    }

    /**
     * @return the location for messages and logs, without its query: {@code az://CONTAINER/BLOB} or
     *         {@code abfss://CONTAINER@HOST/PATH}
     */
    public String name() {
        if (account == null) {
            return scheme + "://" + container + "/" + blob;
        }
        return scheme + "://" + container + "@" + account + ".dfs." + endpointSuffix + "/" + blob;
    }

    /**
     * @param versionId a version id
     * @return this blob, pinned to that version
     */
    public AzureLocation withVersionId(String versionId) {
        return new AzureLocation(scheme, account, endpointSuffix, container, blob, versionId, null);
    }

    private static InvalidLocationException invalid(String shown, String why) {
        return new InvalidLocationException(ErrorCode.INVALID_SOURCE, shown + ": " + why);
    }
}
