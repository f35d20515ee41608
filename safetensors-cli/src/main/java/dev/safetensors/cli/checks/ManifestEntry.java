package dev.safetensors.cli.checks;

import dev.safetensors.SourceIdentity;
import dev.safetensors.cli.results.SourceResult;

/**
 * One file of a manifest: where it is, its size, and its SHA-256 computed locally and/or the digest its server
 * reported, plus the identity the source gave (repository, resolved revision, ETag, version).
 *
 * @param source         the location, as given to {@code manifest} or derived for a shard
 * @param size           the size in bytes
 * @param sha256         the SHA-256 computed locally, lower-case hex; {@code null} when not computed
 * @param reportedSha256 the SHA-256 the Hub reported in {@code X-Linked-Etag}, not computed here; or {@code null}
 * @param repository     the Hub repository {@code OWNER/REPO}, or {@code null}
 * @param revision       the commit a Hub revision resolved to, or {@code null}
 * @param etag           the object's ETag, or {@code null}
 * @param version        the object's version (S3 versionId, GCS generation), or {@code null}
 */
public record ManifestEntry(String source, long size, String sha256, String reportedSha256, String repository,
                     String revision, String etag, String version) {

    /** The label written beside {@link #reportedSha256()}, so nobody mistakes it for a local computation. */
    static final String REPORTED_BY = "Hugging Face Hub X-Linked-Etag (reported by the server, not computed"
            + " locally)";

    /**
     * @param r a valid result of {@code manifest}
     * @return its entry
     */
    public static ManifestEntry of(SourceResult r) {
        SourceIdentity id = SourceIdentity.of(r.attributes());
        return new ManifestEntry(r.source(), r.fileBytes().orElseThrow(), r.sha256().orElse(null),
                id.linkedSha256(), id.repository(), id.revision(), id.etag(), id.version());
    }

    /**
     * @return what {@code verify} compares against: the local digest when recorded, else the reported one
     */
    public Expected expected() {
        if (sha256 != null) {
            return new Expected(size, sha256, "the manifest");
        }
        return new Expected(size, reportedSha256, reportedSha256 == null ? null
                : "the digest the Hub reported, recorded in the manifest");
    }
}
