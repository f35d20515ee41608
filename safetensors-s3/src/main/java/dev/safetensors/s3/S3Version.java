package dev.safetensors.s3;

import dev.safetensors.SourceChangedException;
import dev.safetensors.spi.SourceNames;


/**
 * Which object a source reads: the ETag the first answer reported (sent as {@code If-Match} on every later request)
 * and the version, asked for in the location or reported by a versioned bucket. Immutable.
 *
 * @param etag      the ETag as the server sent it (quoted), or {@code null} while unknown or if the store sends none
 * @param versionId the version, or {@code null}
 */
record S3Version(String etag, String versionId) {

    /**
     * @param name      the source name, for messages
     * @param seenEtag  the ETag an answer carried, or {@code null}
     * @param seenVersion the version an answer carried, or {@code null}
     * @return this version completed with what the answer reported
     * @throws SourceChangedException if the answer reports another ETag or version
     */
    S3Version merge(String name, String seenEtag, String seenVersion) throws SourceChangedException {
        if (etag != null && !etag.equals(seenEtag)) {
            throw new SourceChangedException(name, "the object changed since it was first read: the ETag was "
                    + SourceNames.clip(etag) + " and is now " + (seenEtag == null ? "absent" : SourceNames.clip(seenEtag)));
        }
        if (versionId != null && seenVersion != null && !versionId.equals(seenVersion)) {
            throw new SourceChangedException(name, "the object changed since it was first read: the version was "
                    + SourceNames.clip(versionId) + " and is now " + SourceNames.clip(seenVersion));
        }
        S3Version next = new S3Version(etag != null ? etag : seenEtag, versionId != null ? versionId : seenVersion);
        return next.equals(this) ? this : next;
    }

    @Override
    public String toString() {
        return etag != null ? SourceNames.clip(etag) : versionId != null ? SourceNames.clip(versionId) : "unknown";
    }
}
