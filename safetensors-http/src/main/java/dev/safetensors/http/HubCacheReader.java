package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.ErrorCoded;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RepositoryListing;
import dev.safetensors.SourceNotFoundException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Finds {@code hf://} files and listings in a {@link HubCache} the way {@code huggingface_hub}'s
 * {@code hf_hub_download} and {@code snapshot_download} do, and falls back to the Hub for what the cache lacks:
 * <ul>
 *   <li>a commit: {@code snapshots/COMMIT/PATH}, no request;</li>
 *   <li>a branch or tag, offline: the commit in {@code refs/REVISION}, no request; nothing cached is
 *       {@link SourceNotFoundException};</li>
 *   <li>a branch or tag, online, when the cache has a folder for the repository: one {@code HEAD} to resolve it, then
 *       the snapshot or the blob named by the ETag; a failed {@code HEAD} (network, server error) falls back to
 *       {@code refs/}, as {@code huggingface_hub} does. A repository the cache has no folder for costs nothing
 *       here.</li>
 * </ul>
 * A snapshot entry or blob that leads anywhere but a blob of the repository is refused
 * ({@link ErrorCode#NOT_A_FILE}, see {@link HubCache}) and never opened: neither read nor skipped for the Hub, since a
 * cache that holds such a link was changed by something other than a download.
 */
final class HubCacheReader {
    /** Opens a Hub file remotely, pinned to a commit when one is known. */
    @FunctionalInterface
    interface Remote {
        RandomAccessSource open(HubPath file) throws IOException;
    }

    /** Supplies the lister lazily: an offline read never builds a transport. */
    @FunctionalInterface
    interface Repositories {
        HubRepository get() throws IOException;
    }

    private final HubCache cache;
    private final Repositories repositories;

    HubCacheReader(HubCache cache, Repositories repositories) {
        this.cache = cache;
        this.repositories = repositories;
    }

    RandomAccessSource open(Location location, HubPath at, Remote remote) throws IOException {
        String name = location.display();
        Optional<String> known = cache.knownCommit(at);
        if (HubCache.isCommit(at.revision()) || cache.offline()) {
            if (known.isPresent()) {
                Optional<Path> file = cache.cachedBlob(at, known.get());
                if (file.isPresent()) {
                    return CachedHubFile.open(name, file.get(), at.at(known.get()));
                }
            }
            if (cache.offline()) {
                throw new SourceNotFoundException(name, "HF_HUB_OFFLINE is set and the file is not in the Hugging"
                        + " Face cache at " + cache.root() + (known.isPresent() ? "" : " (no ref for revision "
                        + at.revision() + ")"));
            }
            return remote.open(at);
        }
        if (!Files.isDirectory(cache.folder(at))) {
            return remote.open(at);
        }
        HubFileMetadata meta;
        try {
            meta = repositories.get().metadata(location);
        } catch (IOException e) {
            ErrorCode code = e instanceof ErrorCoded c ? c.code() : ErrorCode.NETWORK;
            boolean transient_ = code == ErrorCode.NETWORK || code == ErrorCode.TIMEOUT
                    || code == ErrorCode.SERVER_ERROR;
            if (transient_ && known.isPresent()) {
                Optional<Path> fallback = cache.cachedBlob(at, known.get());
                if (fallback.isPresent()) {
                    return CachedHubFile.open(name, fallback.get(), at.at(known.get()));
                }
            }
            throw e;
        }
        HubPath pinned = at.at(meta.commit());
        Optional<Path> file = cache.cachedBlob(at, meta.commit());
        if (file.isPresent()) {
            return CachedHubFile.open(name, file.get(), pinned);
        }
        Optional<Path> blob = cache.cachedBlobNamed(at, meta.etag());
        if (blob.isPresent()) {
            return CachedHubFile.open(name, blob.get(), pinned);
        }
        return remote.open(pinned);
    }

    /**
     * @return the listing from the cache when the revision is a commit whose snapshot is there, or offline from the
     *         ref's snapshot; empty when the Hub must be asked
     */
    Optional<RepositoryListing> list(Location location, HubPath at) throws IOException {
        boolean commit = HubCache.isCommit(at.revision());
        if (!commit && !cache.offline()) {
            return Optional.empty();
        }
        Optional<String> known = cache.knownCommit(at);
        Path snapshot = known.map(c -> cache.folder(at).resolve("snapshots").resolve(c)).orElse(null);
        if (snapshot != null && Files.isDirectory(snapshot)) {
            return Optional.of(HubRepository.listSnapshot(location, known.get(), snapshot));
        }
        if (cache.offline()) {
            throw new SourceNotFoundException(location.display(), "HF_HUB_OFFLINE is set and the"
                    + " repository is not in the Hugging Face cache at " + cache.root());
        }
        return Optional.empty();
    }
}
