package dev.safetensors.http;

import dev.safetensors.SourceChangedException;

import static dev.safetensors.spi.SourceNames.clip;

/**
 * What the answers so far said the object is, besides its size: its strong ETag, the Hub commit it resolved to and
 * the digest the Hub reported. Each is pinned by the first answer that reports it; a later answer that contradicts a
 * pinned value is a {@link SourceChangedException}. Values are kept as the server sent them (they go back into
 * {@code If-Match} and resolve URLs) and clipped only for messages. Immutable.
 *
 * @param etag       the strong ETag and where it came from, or {@code null}
 * @param commit     the Hub's {@code X-Repo-Commit}, or {@code null}
 * @param linkedEtag the Hub's {@code X-Linked-Etag}, or {@code null}
 */
record HttpVersion(ETagPin etag, String commit, String linkedEtag) {
    static final HttpVersion UNKNOWN = new HttpVersion(null, null, null);

    /**
     * @param name       the source name, for messages
     * @param seenEtag   the strong ETag this answer carried, or {@code null}
     * @param seenCommit the commit any hop reported, or {@code null}
     * @param seenLinked the linked ETag any hop reported, or {@code null}
     * @return the version with the newly reported values pinned
     * @throws SourceChangedException if a reported value differs from a pinned one, or a pinned ETag is missing
     */
    HttpVersion merge(String name, ETagPin seenEtag, String seenCommit, String seenLinked)
            throws SourceChangedException {
        if (etag != null && (seenEtag == null || !seenEtag.etag().equals(etag.etag()))) {
            throw new SourceChangedException(name, "the ETag changed from " + clip(etag.etag()) + " to "
                    + (seenEtag == null ? "none (or a weak one)" : clip(seenEtag.etag())));
        }
        if (commit != null && seenCommit != null && !commit.equals(seenCommit)) {
            throw new SourceChangedException(name, "the repository commit changed from " + clip(commit) + " to "
                    + clip(seenCommit));
        }
        if (linkedEtag != null && seenLinked != null && !linkedEtag.equals(seenLinked)) {
            throw new SourceChangedException(name, "the Hub's X-Linked-Etag changed from " + clip(linkedEtag)
                    + " to " + clip(seenLinked));
        }
        HttpVersion next = new HttpVersion(etag != null ? etag : seenEtag, commit != null ? commit : seenCommit,
                linkedEtag != null ? linkedEtag : seenLinked);
        return equals(next) ? this : next;
    }

    @Override
    public String toString() {
        return etag == null ? (commit == null ? "unknown" : "commit " + clip(commit)) : clip(etag.etag());
    }
}
