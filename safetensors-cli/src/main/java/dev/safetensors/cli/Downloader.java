package dev.safetensors.cli;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.Limits;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.Location;
import dev.safetensors.core.CheckpointFiles;
import dev.safetensors.core.SafetensorsClient;
import dev.safetensors.core.FileDownload;
import dev.safetensors.core.ReadOptions;
import dev.safetensors.core.Sources;
import dev.safetensors.http.HubBlobLock;
import dev.safetensors.http.HubCache;
import dev.safetensors.http.HubFileMetadata;
import dev.safetensors.http.HubRepository;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongConsumer;

/**
 * What {@code safetensors download} does, apart from its command line: finds every file of the checkpoints a
 * location names (a file, an index and its shards, a Hub repository and its {@code config.json}s), validates every
 * {@code .safetensors} header before any payload is fetched ({@link FileDownload#validate}: the read path's header
 * check, with its bound on open sources), then downloads each file with {@link FileDownload} from a source opened
 * again and pinned to the version validated, into a folder or into the Hugging Face cache ({@link HubCache}).
 *
 * <p>Into the cache, each Hub file costs one {@code HEAD} (its commit and blob name, as {@code huggingface_hub}
 * asks) unless the commit's snapshot already holds it (then nothing), and is verified against the Hub's SHA-256 when
 * it is an LFS file. Into a folder, the SHA-256 the source reports ({@code X-Linked-Etag}) is verified the same way.
 */
final class Downloader {
    /** One file done. */
    record Done(String source, Path path, FileDownload.Result result) {
    }

    private final SafetensorsClient checkpoints;
    private final HubRepository hub;
    private final Limits limits;
    private final ReadOptions options;
    private final boolean force;
    private final LongConsumer grow;
    private final LongConsumer advance;

    /**
     * @param checkpoints the run's registry (opens every source and lists repositories), limits and read options
     * @param hub      asks the Hub for a file's commit and blob name (for {@code --cache}), or {@code null}
     * @param limits   the header limits
     * @param options  parallel parts
     * @param force    download files whose header is invalid
     * @param grow     told the size of each file about to be fetched
     * @param advance  told each byte count fetched
     */
    Downloader(SafetensorsClient checkpoints, HubRepository hub, Limits limits, ReadOptions options,
               boolean force, LongConsumer grow, LongConsumer advance) {
        this.checkpoints = checkpoints;
        this.hub = hub;
        this.limits = limits;
        this.options = options;
        this.force = force;
        this.grow = grow;
        this.advance = advance;
    }

    /**
     * @param location a file, an index or a repository
     * @return every file of its checkpoints, the index first, then shards, then {@code config.json}
     * @throws IOException if the location names nothing or a listing or index fails
     */
    List<String> files(String location) throws IOException {
        Set<String> files = new LinkedHashSet<>();
        for (CheckpointFiles c : CheckpointFiles.locateAll(location, checkpoints)) {
            files.add(c.file().text());
            c.shards().forEach(shard -> files.add(shard.text()));
            c.config().ifPresent(config -> files.add(config.text()));
        }
        return List.copyOf(files);
    }

    /**
     * @param location what the user named, for the relative names of files in a repository or beside an index
     * @param out      the folder
     * @return what was done, file by file
     * @throws IOException at the first failure; files already done stay
     */
    List<Done> toFolder(String location, Path out) throws IOException {
        List<String> files = files(location);
        List<Checked> checked = openAndCheck(files);
        List<Done> done = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            Path target = out.resolve(relative(location, files.get(i)));
            FileDownload.Result r = run(checked.get(i), s -> FileDownload.Placement.beside(target)
                    .expecting(publishedSha256(s)));
            done.add(new Done(files.get(i), target, r));
        }
        return done;
    }

    /**
     * @param location an {@code hf://} file, index or repository
     * @param cache    the cache to fill
     * @return what was done, file by file (the snapshot path of each)
     * @throws IOException at the first failure ({@code TIMEOUT} when another download kept a blob's lock past the
     *                     cache's lock wait); files already done stay linked
     */
    List<Done> toCache(String location, HubCache cache) throws IOException {
        URI asked = Sources.asUri(location);
        String shown = Location.parse(location).display();
        if (asked == null || !"hf".equalsIgnoreCase(asked.getScheme())) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, shown + ": --cache takes an hf:// location;"
                    + " the Hugging Face cache holds Hub files only");
        }
        if (cache.offline()) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, shown + ": HF_HUB_OFFLINE is set, so"
                    + " nothing can be downloaded");
        }
        List<String> files = files(location);
        List<Done> done = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (String f : files) {
            URI uri = URI.create(f);
            // only a location at a commit is trusted to the snapshot: a ref in the cache may be stale
            Optional<String> commit = HubCache.commitIn(uri);
            Optional<Path> cached = commit.isPresent() ? cache.cachedFile(uri, commit.get()) : Optional.empty();
            if (cached.isPresent()) {
                done.add(new Done(f, cached.get(), null));
            } else {
                missing.add(f);
            }
        }
        List<Checked> sources = openAndCheck(missing);
        for (int i = 0; i < missing.size(); i++) {
            URI uri = URI.create(missing.get(i));
            HubFileMetadata meta = hub.metadata(Location.of(uri));
            Path blob = cache.blob(uri, meta.etag());
            FileDownload.Result r;
            Path pointer;
            Checked checked = sources.get(i);
            // held from the fetch to the link: a second download of this blob waits, then finds it in place
            try (HubBlobLock lock = cache.lockBlob(uri, meta.etag())) {
                r = run(checked, s -> new FileDownload.Placement(blob,
                        blob.resolveSibling(blob.getFileName() + ".incomplete"),
                        meta.sha256().or(() -> publishedSha256(s))));
                pointer = cache.link(uri, meta.commit(), meta.etag());
            }
            cache.recordRef(asked, meta.commit());
            done.add(new Done(missing.get(i), pointer, r));
        }
        return done;
    }

    /** A file of the download, its header validated, and the version it was validated at (if it has one). */
    private record Checked(Location location, Optional<String> version) {
    }

    /**
     * Validates every {@code .safetensors} header before any payload is fetched, through the read path's check with
     * its bound on open sources; nothing stays open.
     */
    private List<Checked> openAndCheck(List<String> files) throws IOException {
        List<Location> locations = files.stream().map(Location::parse).toList();
        List<Optional<String>> versions = FileDownload.validate(locations, checkpoints, force);
        List<Checked> checked = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            checked.add(new Checked(locations.get(i), versions.get(i)));
        }
        return checked;
    }

    /** Downloads one file from a source opened again, pinned to the version its header was validated at. */
    private FileDownload.Result run(Checked file, FileDownload.Placer placer) throws IOException {
        try (RandomAccessSource source = checkpoints.registry().open(file.location())) {
            grow.accept(source.size());
            long[] seen = {-1};
            return FileDownload.builder(source, placer).limits(limits).readOptions(options).force(force)
                    .headerChecked(true).expectedVersion(file.version().orElse(null)).progress(held -> {
                        if (seen[0] >= 0) {
                            advance.accept(held - seen[0]);
                        } else {
                            advance.accept(held);
                        }
                        seen[0] = held;
                    }).build().run();
        }
    }

    /** The SHA-256 a source reports the store published for it ({@code X-Linked-Etag}), when it is one. */
    private static Optional<String> publishedSha256(RandomAccessSource s) {
        return Optional.ofNullable(s.identity().linkedSha256());
    }

    /** A file's name under the output folder: its path in the repository, or its name beside the index. */
    private static String relative(String location, String file) throws IOException {
        Location at = Location.parse(file);
        if (at.scheme().equals("hf")) {
            return HubCache.pathInRepository(at.uri().orElseThrow());
        }
        String name = at.fileName();
        if (name.isEmpty() || name.equals(".") || name.equals("..")) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, Location.parse(location).display()
                    + ": cannot name a local file after " + at.display());
        }
        return name;
    }
}
