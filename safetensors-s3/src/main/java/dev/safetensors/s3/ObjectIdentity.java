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
     * @return how a response that reports {@code etag}, {@code versionId} and {@code size} differs from this
     *         identity, or empty if it describes the same object
     */
    Optional<String> differenceFrom(String etag, String versionId, long size) {
        if (this.etag != null && !this.etag.equals(etag)) {
            return Optional.of("the ETag was " + this.etag + " and is now " + etag);
        }
        if (this.versionId != null && versionId != null && !this.versionId.equals(versionId)) {
            return Optional.of("the version was " + this.versionId + " and is now " + versionId);
        }
        if (this.size != size) {
            return Optional.of("the size was " + this.size + " and is now " + size);
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
