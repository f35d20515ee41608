package dev.safetensors.gcs;

import com.google.cloud.storage.BlobId;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.spi.SourceNames;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URI;

/**
 * A parsed {@code gs://bucket/object} URI, optionally pinned to a generation by {@code #123} or
 * {@code ?generation=123}. The object name is the percent-decoded path without its leading slash, so
 * {@code gs://b/dir/m.safetensors} names object {@code dir/m.safetensors}.
 *
 * @param bucket     the bucket name
 * @param object     the object name
 * @param generation the generation asked for, or -1 for the live object
 */
record GcsUri(String bucket, String object, long generation) {

    static final String SCHEME = "gs";

    static boolean isGcs(URI uri) {
        return SCHEME.equalsIgnoreCase(uri.getScheme()) && !uri.isOpaque();
    }

    /**
     * @throws MalformedURLException naming the URI (without its generation) and what is wrong with it
     */
    static GcsUri parse(URI uri) throws IOException {
        String name = SourceNames.redact(uri);
        if (!isGcs(uri)) {
            throw malformed(name, "not a gs://bucket/object URI");
        }
        String bucket = uri.getRawAuthority();
        String path = uri.getPath();
        if (bucket == null || bucket.isEmpty() || bucket.contains("@") || bucket.contains(":")) {
            throw malformed(name, "a gs URI needs a bucket name and nothing else before the object path");
        }
        if (path == null || path.length() < 2 || path.isBlank() || bucket.isBlank()) {
            throw malformed(name, "the URI names no object");
        }
        long fromFragment = generation(name, uri.getFragment());
        long fromQuery = generationFromQuery(name, uri.getRawQuery());
        if (fromFragment >= 0 && fromQuery >= 0 && fromFragment != fromQuery) {
            throw malformed(name, "two different generations in the URI (" + fromQuery + " and " + fromFragment + ")");
        }
        return new GcsUri(bucket, path.substring(1), Math.max(fromFragment, fromQuery));
    }

    private static long generationFromQuery(String name, String query) throws IOException {
        if (query == null) {
            return -1;
        }
        if (!query.startsWith("generation=") || query.indexOf('&') >= 0) {
            // Anything else in the query would be silently ignored, so it is refused.
            throw malformed(name, "the only query parameter accepted is generation=N");
        }
        return generation(name, query.substring("generation=".length()));
    }

    private static long generation(String name, String digits) throws IOException {
        if (digits == null) {
            return -1;
        }
        if (digits.isEmpty() || digits.length() > 18 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw malformed(name, "the generation must be a decimal number, not '" + SourceNames.clip(digits) + "'");
        }
        return Long.parseLong(digits);
    }

    private static MalformedURLException malformed(String name, String why) {
        return new InvalidLocationException(ErrorCode.INVALID_SOURCE, name + ": " + why);
    }

    /** @return the URI's name for messages: {@code gs://bucket/object}, without the generation */
    String name() {
        return "gs://" + bucket + "/" + object;
    }

    /** @return a blob id carrying the generation when one was asked for */
    BlobId blobId() {
        return generation >= 0 ? BlobId.of(bucket, object, generation) : BlobId.of(bucket, object);
    }

    static GcsUri of(BlobId blob) {
        Long g = blob.getGeneration();
        return new GcsUri(blob.getBucket(), blob.getName(), g == null ? -1 : g);
    }
}
