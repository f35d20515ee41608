package dev.safetensors.spi;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.ListEntry;
import dev.safetensors.Location;

import java.io.IOException;
import java.net.URI;
import java.time.Instant;

/**
 * A prefix of an object store written as {@code SCHEME://BUCKET[/PREFIX]}: the bucket (the URI's authority) and the
 * key prefix, which, when not empty, ends with {@code /} so that {@code models} never matches {@code models-old/}.
 * Every object-store listing parses its location and names its entries through here.
 *
 * @param scheme the scheme, such as {@code s3} or {@code gs}
 * @param bucket the bucket (or container)
 * @param prefix the key prefix: empty, or ending with {@code /}
 */
public record BucketPrefix(String scheme, String bucket, String prefix) {

    /**
     * @param where a location {@code SCHEME://BUCKET[/PREFIX]}
     * @return its bucket and prefix
     * @throws IOException an {@link InvalidLocationException} ({@link ErrorCode#INVALID_SOURCE}) if it is not a URI
     *                     or names no bucket
     */
    public static BucketPrefix parse(Location where) throws IOException {
        URI uri = where.uri().orElseThrow(() -> new InvalidLocationException(ErrorCode.INVALID_SOURCE,
                where.display() + ": not a valid URI"));
        String scheme = where.scheme();
        String bucket = uri.getAuthority();
        if (bucket == null || bucket.isEmpty()) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, where.display() + ": a " + scheme
                    + ":// prefix names a bucket: " + scheme + "://BUCKET/PREFIX/");
        }
        String path = uri.getPath() == null ? "" : uri.getPath();
        String prefix = path.startsWith("/") ? path.substring(1) : path;
        if (!prefix.isEmpty() && !prefix.endsWith("/")) {
            prefix = prefix + "/";
        }
        return new BucketPrefix(scheme, bucket, prefix);
    }

    /**
     * @param key an object key (or a common prefix) the storage listed
     * @return whether it lies strictly under this prefix
     */
    public boolean holds(String key) {
        return key != null && key.startsWith(prefix) && key.length() > prefix.length();
    }

    /**
     * @param key an object key in this bucket
     * @return its location, each key segment percent-encoded ({@link Location#encodeSegment})
     */
    public Location locationOf(String key) {
        StringBuilder path = new StringBuilder(scheme).append("://").append(bucket);
        for (String segment : key.split("/", -1)) {
            path.append('/').append(Location.encodeSegment(segment));
        }
        return Location.parse(path.toString());
    }

    /**
     * The entry of an object the storage listed, with its location ({@link #locationOf}); an object whose key no
     * request can name exactly ({@link SourceNames#nameable}) is an {@link ListEntry.Kind#INVALID_NAME} entry instead,
     * never a file to open.
     *
     * @param key          the object's key
     * @param size         its size, or {@code -1}
     * @param version      its version, or {@code null}
     * @param lastModified when it was written, or {@code null}
     * @return its entry
     */
    public ListEntry fileEntry(String key, long size, String version, Instant lastModified) {
        return SourceNames.nameable(key) ? ListEntry.file(locationOf(key), size, version, lastModified)
                : unnameable(key);
    }

    /**
     * @param prefix a common prefix the storage listed (a folder of a one-level listing)
     * @return its {@link ListEntry.Kind#FOLDER} entry, or an {@link ListEntry.Kind#INVALID_NAME} one when no request
     *         can name it exactly
     */
    public ListEntry folderEntry(String prefix) {
        return SourceNames.nameable(prefix) ? ListEntry.special(locationOf(prefix), ListEntry.Kind.FOLDER)
                : unnameable(prefix);
    }

    /** The entry of a key no request can name, located by its {@linkplain SourceNames#shown shown} form. */
    private ListEntry unnameable(String key) {
        return ListEntry.special(locationOf(SourceNames.shown(key)), ListEntry.Kind.INVALID_NAME);
    }

    /** @return {@code SCHEME://BUCKET/PREFIX}, for messages */
    @Override
    public String toString() {
        return scheme + "://" + bucket + "/" + prefix;
    }
}
