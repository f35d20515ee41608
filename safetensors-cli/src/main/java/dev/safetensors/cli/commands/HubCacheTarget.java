package dev.safetensors.cli.commands;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceStatistics;
import dev.safetensors.core.DownloadTarget;
import dev.safetensors.core.FileDownload;
import dev.safetensors.http.HubBlobLock;
import dev.safetensors.http.HubCache;
import dev.safetensors.http.HubFileMetadata;
import dev.safetensors.http.HubRepository;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;

/**
 * {@code download --cache}: the Hugging Face cache as a {@link DownloadTarget}. A file at a commit the cache's
 * snapshot already holds costs nothing; any other costs one {@code HEAD} ({@link HubRepository#metadata}: its commit
 * and blob name, as {@code huggingface_hub} asks), is fetched into its blob under the blob's lock (a second download
 * of the blob waits, then finds it in place), verified against the Hub's SHA-256 when it is an LFS file, and linked
 * into {@code snapshots/COMMIT/}; the ref asked for is recorded to that commit.
 */
final class HubCacheTarget implements DownloadTarget {
    /** One {@code HEAD}, one exchange, no body. */
    private static final SourceStatistics HEAD = new SourceStatistics(1, 0, 1);

    private final URI asked;
    private final HubCache cache;
    private final HubRepository hub;

    private HubCacheTarget(URI asked, HubCache cache, HubRepository hub) {
        this.asked = asked;
        this.cache = cache;
        this.hub = hub;
    }

    /**
     * @param asked the location downloaded
     * @param cache the cache to fill
     * @param hub   asks the Hub for each file's commit and blob name
     * @return the target
     * @throws InvalidLocationException {@link ErrorCode#INVALID_SOURCE} for a location that is not {@code hf://}
     *                                  (named by its display form), or a cache that is offline
     */
    static HubCacheTarget of(Location asked, HubCache cache, HubRepository hub) throws InvalidLocationException {
        if (asked.uri().isEmpty() || !asked.scheme().equals("hf")) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, asked.display() + ": --cache takes an hf://"
                    + " location; the Hugging Face cache holds Hub files only");
        }
        if (cache.offline()) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, asked.display() + ": HF_HUB_OFFLINE is set,"
                    + " so nothing can be downloaded");
        }
        return new HubCacheTarget(asked.uri().get(), cache, hub);
    }

    @Override
    public Optional<Path> held(Location file) throws IOException {
        URI uri = file.uri().orElseThrow();
        // only a location at a commit is trusted to the snapshot: a ref in the cache may be stale
        Optional<String> commit = HubCache.commitIn(uri);
        return commit.isPresent() ? cache.cachedFile(uri, commit.get()) : Optional.empty();
    }

    @Override
    public Slot slot(Location file, String relative) throws IOException {
        URI uri = file.uri().orElseThrow();
        HubFileMetadata meta = hub.metadata(file);
        Path blob = cache.blob(uri, meta.etag());
        HubBlobLock lock = cache.lockBlob(uri, meta.etag());
        return new Slot() {
            @Override
            public FileDownload.Placement place(RandomAccessSource source) {
                return new FileDownload.Placement(blob, blob.resolveSibling(blob.getFileName() + ".incomplete"),
                        meta.sha256().or(() -> FileDownload.publishedSha256(source)));
            }

            @Override
            public Path publish(Path placed) throws IOException {
                Path pointer = cache.link(uri, meta.commit(), meta.etag());
                cache.recordRef(asked, meta.commit());
                return pointer;
            }

            @Override
            public SourceStatistics cost() {
                return HEAD;
            }

            @Override
            public void close() throws IOException {
                lock.close();
            }
        };
    }
}
