package dev.safetensors.http;

import dev.safetensors.SourceChangedException;

import static dev.safetensors.spi.SourceNames.clip;

/**
 * What the responses so far said the object is: its size, its strong ETag, the Hub commit it resolved to and the
 * digest the Hub reported. Each is pinned by the first response that reports it; a later response that
 * contradicts a pinned value is a {@link SourceChangedException}. Values are kept as the server sent them (they go
 * back into {@code If-Match} and resolve URLs) and clipped only for messages. Immutable.
 *
 * @param size       the object size, or -1 while unknown
 * @param etag       the strong ETag and where it came from, or {@code null}
 * @param commit     the Hub's {@code X-Repo-Commit}, or {@code null}
 * @param linkedEtag the Hub's {@code X-Linked-Etag}, or {@code null}
 */
record PinnedIdentity(long size, ETagPin etag, String commit, String linkedEtag) {
    static final PinnedIdentity UNKNOWN = new PinnedIdentity(-1, null, null, null);

    /**
     * @param name         the source name, for messages
     * @param seenSize     the size this response reported, or -1
     * @param seenEtag     the strong ETag this response carried, or {@code null}
     * @param etagExpected whether this response is one that must carry the pinned ETag (a 206 body)
     * @param seenCommit   the commit any hop reported, or {@code null}
     * @param seenLinked   the linked ETag any hop reported, or {@code null}
     * @return the identity with the newly reported values pinned
     * @throws SourceChangedException if a reported value differs from a pinned one, or a pinned ETag is missing
     */
    PinnedIdentity merge(String name, long seenSize, ETagPin seenEtag, boolean etagExpected, String seenCommit,
                         String seenLinked) throws SourceChangedException {
        if (size >= 0 && seenSize >= 0 && size != seenSize) {
            throw new SourceChangedException(name, "the object size changed from " + size + " to " + seenSize);
        }
        if (etag != null && etagExpected && (seenEtag == null || !seenEtag.etag().equals(etag.etag()))) {
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
        PinnedIdentity next = new PinnedIdentity(size >= 0 ? size : seenSize, etag != null ? etag : seenEtag,
                commit != null ? commit : seenCommit, linkedEtag != null ? linkedEtag : seenLinked);
        return equals(next) ? this : next;
    }
}
