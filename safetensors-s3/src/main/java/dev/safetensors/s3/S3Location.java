package dev.safetensors.s3;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One S3 object, or one version of it: {@code s3://bucket/key} or {@code s3://bucket/key?versionId=ID}.
 * Immutable.
 *
 * @param bucket    the bucket name
 * @param key       the object key, not empty, without a leading slash added by the URI form
 * @param versionId the object version to read, or {@code null} for the current version
 */
public record S3Location(String bucket, String key, String versionId) {
    /** Bucket names as S3 and its compatible stores allow them, legacy upper case and underscores included. */
    private static final Pattern BUCKET = Pattern.compile("[A-Za-z0-9._-]{1,255}");

    /**
     * @param bucket    the bucket name
     * @param key       the object key
     * @param versionId the object version, or {@code null}
     * @throws IllegalArgumentException if the bucket name is not a bucket name, the key is empty, or the version is
     *                                  empty
     */
    public S3Location {
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(key, "key");
        if (!BUCKET.matcher(bucket).matches()) {
            throw new IllegalArgumentException("not an S3 bucket name: '" + bucket + "'");
        }
        if (key.isEmpty()) {
            throw new IllegalArgumentException("s3://" + bucket + "/: the object key is empty");
        }
        if (versionId != null && versionId.isEmpty()) {
            throw new IllegalArgumentException("s3://" + bucket + "/" + key + ": the versionId is empty");
        }
    }

    /**
     * Parses {@code s3://bucket/key} with an optional {@code versionId} query parameter. Percent escapes in the key
     * and the version are decoded. User information, ports, fragments and other query parameters are refused:
     * credentials never travel in the URI, and a parameter this backend would ignore is a mistake worth reporting.
     *
     * @param uri an {@code s3} URI
     * @return the location
     * @throws IllegalArgumentException if the URI is not of that form
     */
    public static S3Location parse(URI uri) {
        if (uri.getScheme() == null || !uri.getScheme().toLowerCase(Locale.ROOT).equals("s3") || uri.isOpaque()) {
            throw new IllegalArgumentException("not an s3://bucket/key URI: " + uri.getScheme() + ":...");
        }
        String authority = uri.getRawAuthority();
        if (authority == null || authority.contains("@") || authority.contains(":")) {
            throw new IllegalArgumentException("an s3:// URI names a bucket only, without user information or port");
        }
        if (uri.getRawFragment() != null) {
            throw new IllegalArgumentException("s3://" + authority + ": an s3:// URI has no fragment");
        }
        String path = uri.getPath() == null ? "" : uri.getPath();
        String key = path.startsWith("/") ? path.substring(1) : path;
        return new S3Location(authority, key, versionFrom(authority, uri.getRawQuery()));
    }

    private static String versionFrom(String bucket, String rawQuery) {
        if (rawQuery == null) {
            return null;
        }
        String versionId = null;
        for (String parameter : rawQuery.split("&", -1)) {
            int eq = parameter.indexOf('=');
            String name = eq < 0 ? parameter : parameter.substring(0, eq);
            if (!name.equals("versionId") || eq < 0 || versionId != null) {
                throw new IllegalArgumentException("s3://" + bucket + ": the only query parameter allowed is one"
                        + " versionId=...");
            }
            // URLDecoder decodes form encoding, where '+' means space; a versionId may hold a literal '+'.
            versionId = URLDecoder.decode(parameter.substring(eq + 1).replace("+", "%2B"), StandardCharsets.UTF_8);
        }
        return versionId;
    }

    /** @return {@code s3://bucket/key}, for messages and logs; the version is not part of it */
    public String name() {
        return "s3://" + bucket + "/" + key;
    }
}
