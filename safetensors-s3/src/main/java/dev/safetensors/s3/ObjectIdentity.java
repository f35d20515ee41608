package dev.safetensors.s3;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What the first response said about the object: its ETag, its version (on versioned buckets) and its size.
 * Later requests are made conditional on it, and later responses are checked against it.
 *
 * @param etag      the ETag as the server sent it (quoted), or {@code null} if the store sends none
 * @param versionId the version, or {@code null} on an unversioned bucket
 * @param size      the object size in bytes
 */
record ObjectIdentity(String etag, String versionId, long size) {

    /**
     * @param seen what a later response reports
     * @return how it differs from this identity, or empty if it describes the same object
     */
    Optional<String> differenceFrom(ObjectIdentity seen) {
        if (etag != null && !etag.equals(seen.etag)) {
            return Optional.of("the ETag was " + etag + " and is now " + seen.etag);
        }
        if (versionId != null && seen.versionId != null && !versionId.equals(seen.versionId)) {
            return Optional.of("the version was " + versionId + " and is now " + seen.versionId);
        }
        if (size != seen.size) {
            return Optional.of("the size was " + size + " and is now " + seen.size);
        }
        return Optional.empty();
    }

    /** @return the {@code etag} and {@code version} attributes a source reports */
    Map<String, String> attributes() {
        Map<String, String> attributes = new HashMap<>();
        if (etag != null) {
            attributes.put("etag", etag);
        }
        if (versionId != null) {
            attributes.put("version", versionId);
        }
        return Map.copyOf(attributes);
    }
}
