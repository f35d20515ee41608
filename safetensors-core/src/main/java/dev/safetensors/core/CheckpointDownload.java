package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.ListEntry;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceAccessDeniedException;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.SourceStatistics;
import dev.safetensors.StorageException;
import dev.safetensors.core.internal.read.FetchRanges;
import dev.safetensors.core.internal.read.OrderedFetch;
import dev.safetensors.core.internal.write.StoreCommit;
import dev.safetensors.spi.ObjectWriterProvider;
import dev.safetensors.spi.SourceNames;
import dev.safetensors.spi.UploadOptions;
import dev.safetensors.spi.WrittenObject;

import java.io.IOException;
import java.net.URI;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@link SafetensorsClient#download}, the one implementation the command and the examples use:
 * <ol>
 *   <li>finds the files: a repository, folder or prefix selected by globs (or a folder or prefix by
 *       {@link Selection#CHECKPOINT_FILES}) through {@link SafetensorsClient#select} at every level; otherwise the
 *       checkpoints a file, an index or a repository names ({@link CheckpointFiles#locateAll}), filtered by the
 *       globs. Each is named by its path below the location (a file's or an index's folder), checked safe;</li>
 *   <li>asks the target which it already holds;</li>
 *   <li>validates the header of every other file whose {@linkplain Location#fileName() file name} is a
 *       {@code .safetensors} name, before any payload byte of any file, {@link ReadOptions#parallelism()} at a time
 *       ({@link ShardHeaders}: no more sources open than that), and learns the version each was validated at;</li>
 *   <li>fetches each through {@link FileDownload} from a source opened again and pinned to that version, placed by
 *       the target's slot.</li>
 * </ol>
 * Every request is counted where it was made: each file's header check, fetch and slot, and the listing and index
 * reads that found them.
 */
final class CheckpointDownload {
    private final SafetensorsClient client;
    private final DownloadRequest request;
    /** The relative names taken so far, at most {@link DownloadRequest#maxFiles()}. */
    private final Set<String> names = new HashSet<>();

    /** A file to download: where it is, and its path below the location downloaded. */
    private record Named(Location location, String relative) {
    }

    /** The files found, and what finding them cost. */
    private record Found(List<Named> files, SourceStatistics cost) {
    }

    CheckpointDownload(SafetensorsClient client, DownloadRequest request) {
        this.client = client;
        this.request = request;
    }

    DownloadResult run(Location source, DownloadTarget target) throws IOException {
        Found found = find(source);
        List<DownloadedFile> done = new ArrayList<>();
        List<Named> missing = new ArrayList<>();
        Map<Named, Path> held = new LinkedHashMap<>();
        for (Named f : found.files()) {
            Optional<Path> at = target.held(f.location());
            if (at.isPresent()) {
                held.put(f, at.get());
            } else {
                missing.add(f);
            }
        }
        for (Map.Entry<Named, Path> e : held.entrySet()) {
            DownloadedFile d = new DownloadedFile(e.getKey().location(), e.getValue(), Optional.empty(),
                    SourceStatistics.NONE);
            request.listener().done(d);
            done.add(d);
        }
        List<Validated> checked = validate(missing);
        for (int i = 0; i < missing.size(); i++) {
            DownloadedFile d = fetch(missing.get(i), checked.get(i), target);
            request.listener().done(d);
            done.add(d);
        }
        return new DownloadResult(done, found.cost());
    }

    /**
     * Mirrors the files into a store prefix through {@link StoreCommit}: found and header-checked as for a download,
     * then each streamed from a source pinned to the version validated, through its SHA-256, into an upload that
     * commits only if the digest equals the one the source's store published (when it publishes one); every other
     * file first, the indexes last. No file of the prefix outside the set is deleted.
     */
    MirrorResult mirror(Location source, Location prefix, UploadOptions uploads) throws IOException {
        // a prefix no writer serves is refused before anything is asked of the source
        ObjectWriterProvider writer = client.registry().writer(prefix);
        Found found = find(source);
        List<Validated> checked = validate(found.files());
        List<StoreCommit.Item> data = new ArrayList<>();
        List<StoreCommit.Item> indexes = new ArrayList<>();
        Map<String, Copied> copied = new LinkedHashMap<>();
        for (int i = 0; i < found.files().size(); i++) {
            Named file = found.files().get(i);
            Validated validated = checked.get(i);
            StoreCommit.Item item = new StoreCommit.Item(file.relative(), UploadOptions.UNKNOWN_SIZE,
                    upload -> copied.put(file.relative(), copy(file, validated, upload)));
            (file.location().isIndex() ? indexes : data).add(item);
        }
        StoreCommit.Published published = new StoreCommit(writer, client.registry()::list, prefix, uploads,
                request.force(), name -> false, step -> { }).publish(data, indexes);
        List<MirroredObject> objects = new ArrayList<>();
        List<StoreCommit.Item> order = new ArrayList<>(data);
        order.addAll(indexes);
        for (int i = 0; i < order.size(); i++) {
            Copied c = copied.get(order.get(i).name());
            WrittenObject w = published.written().get(i);
            if (w.size() != c.size()) {
                throw new StorageException(ErrorCode.WRITE_FAILED, w.location().display(), "the store holds "
                        + w.size() + " bytes of the " + c.size() + " copied");
            }
            objects.add(new MirroredObject(c.source(), w.location(), c.size(), c.sha256(), c.verified(),
                    w.checksum(), c.cost()));
        }
        return new MirrorResult(objects, found.cost());
    }

    /** One file copied into its upload, before the commit. */
    private record Copied(Location source, long size, String sha256, boolean verified, SourceStatistics cost) {
    }

    /**
     * Streams one file into its upload in verified ranged parts, pinned to the version its header was validated at;
     * a digest that differs from the published one fails before the upload commits, so the object never appears.
     */
    private Copied copy(Named file, Validated checked, java.nio.channels.WritableByteChannel upload)
            throws IOException {
        try (RandomAccessSource source = client.registry().open(file.location())) {
            long size = source.size();
            FileDownload.pinnedVersion(source, checked.version().orElse(null), file.location().display());
            request.listener().starting(file.location(), size);
            java.security.MessageDigest sha = dev.safetensors.Sha256.newDigest();
            ReadOptions options = client.readOptions();
            OrderedFetch.run(source, 0, FetchRanges.span(size, options.partSizeBytes()), options.parallelism(),
                    options.partSizeBytes(), (at, bytes) -> {
                        int n = bytes.remaining();
                        sha.update(bytes.duplicate());
                        while (bytes.hasRemaining()) {
                            upload.write(bytes);
                        }
                        request.listener().fetched(n);
                    });
            String digest = java.util.HexFormat.of().formatHex(sha.digest());
            Optional<String> published = FileDownload.publishedSha256(source);
            if (published.isPresent() && !published.get().equals(digest)) {
                throw new dev.safetensors.SourceChangedException(file.location().display(), "the bytes read have"
                        + " SHA-256 " + digest + " but the store published " + published.get() + "; not committed");
            }
            return new Copied(file.location(), size, digest, published.isPresent(),
                    checked.cost().plus(source.statistics()));
        }
    }

    /** The files of the download, each with its relative name; refused past {@link DownloadRequest#maxFiles()}. */
    private Found find(Location source) throws IOException {
        boolean file = fileLike(source);
        if (!file && (request.hasGlobs() || CheckpointFiles.isFolder(source))) {
            return list(source);
        }
        Map<String, Location> files = new LinkedHashMap<>();
        SourceStatistics cost = SourceStatistics.NONE;
        for (CheckpointFiles c : client.locateAll(source)) {
            cost = cost.plus(c.cost());
            files.putIfAbsent(c.file().text(), c.file());
            c.shards().forEach(shard -> files.putIfAbsent(shard.text(), shard));
            c.config().ifPresent(config -> files.putIfAbsent(config.text(), config));
        }
        Location root = file ? parent(source) : source;
        List<Named> named = new ArrayList<>();
        for (Location f : files.values()) {
            String name = f.fileName();
            boolean kept = (request.include().isEmpty() || NameGlob.any(request.include(), name))
                    && !NameGlob.any(request.exclude(), name);
            if (kept) {
                add(named, source, new Named(f, relative(source, root, f)));
            }
        }
        return new Found(named, cost);
    }

    private Found list(Location source) throws IOException {
        List<Named> named = new ArrayList<>();
        try (PrefixSelection selection = client.select(source, request.selection())) {
            while (selection.hasNext()) {
                ListEntry e = selection.next();
                if (e.kind() == ListEntry.Kind.FOLDER || e.kind() == ListEntry.Kind.FOLDER_LINK
                        || e.kind() == ListEntry.Kind.LOOP) {
                    // a folder is walked; a link to one or a loop is not followed, as a check does not follow it
                    continue;
                }
                if (!e.isFile()) {
                    throw notAFile(source, e);
                }
                add(named, source, new Named(e.location(), relative(source, source, e.location())));
            }
            if (named.isEmpty()) {
                throw new SourceNotFoundException(source.display(), "the listing selects no file"
                        + " to download (include " + request.selection().include() + (request.exclude().isEmpty()
                        ? "" : ", exclude " + request.exclude()) + ", every level)");
            }
            return new Found(named, selection.cost());
        }
    }

    private void add(List<Named> named, Location source, Named file) throws IOException {
        if (named.size() >= request.maxFiles()) {
            throw new StorageException(ErrorCode.INVALID_LISTING, source.display(), "names more than "
                    + request.maxFiles() + " files to download; narrow it with include and exclude globs");
        }
        if (!names.add(file.relative())) {
            // two objects of one name below the location (differently encoded, say): one would overwrite the other
            throw unnamed(source, file.location(), "another file of the download has the same path, "
                    + SourceNames.clip(file.relative()));
        }
        named.add(file);
    }

    private static IOException notAFile(Location source, ListEntry e) {
        String shown = e.location().display();
        return switch (e.kind()) {
            case DENIED -> new SourceAccessDeniedException(shown, "permission denied: the folder"
                    + " cannot be listed, so what it holds cannot be downloaded");
            case INVALID_NAME -> new StorageException(ErrorCode.INVALID_LISTING, shown, "the listing of "
                    + source.display() + " names an object no request can name exactly: not downloaded");
            case UNREADABLE -> new StorageException(ErrorCode.IO_ERROR, shown, "could not be read while listing "
                    + source.display() + ", so what it holds cannot be downloaded");
            default -> new StorageException(ErrorCode.NOT_A_FILE, shown, "is not a regular file ("
                    + e.kind().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')
                    + "): not downloaded; exclude it by name to download the rest");
        };
    }

    /** @return whether the location names one file (an index or a {@code .safetensors} file), not a listing */
    private static boolean fileLike(Location source) {
        return source.isIndex() || source.fileName().endsWith(Location.FILE_SUFFIX);
    }

    /** @return the folder a file is in, as a location written with a final slash */
    private static Location parent(Location file) {
        if (file.uri().isEmpty()) {
            Path parent = file.path().toAbsolutePath().getParent();
            return parent == null ? file : Location.of(parent);
        }
        URI uri = file.uri().get();
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        return Location.parse(uri.getScheme() + "://" + (uri.getRawAuthority() == null ? "" : uri.getRawAuthority())
                + path.substring(0, path.lastIndexOf('/') + 1));
    }

    /**
     * A file's path below the location downloaded: for a local file its path relative to the root's; for a URI the
     * path segments past the root's (a Hub listing pins {@code REPO} to {@code REPO@COMMIT}, the same segment). Every
     * segment must be a plain name, so no file lands outside the output.
     */
    static String relative(Location source, Location root, Location file) throws InvalidLocationException {
        List<String> segments;
        if (file.uri().isEmpty() || root.uri().isEmpty()) {
            if (!file.isLocal() || !root.isLocal()) {
                throw unnamed(source, file, "it is not below the location downloaded");
            }
            Path base = root.path().toAbsolutePath().normalize();
            Path at = file.path().toAbsolutePath().normalize();
            if (!at.startsWith(base) || at.equals(base)) {
                throw unnamed(source, file, "it is not below the location downloaded");
            }
            segments = new ArrayList<>();
            for (Path p : base.relativize(at)) {
                segments.add(p.toString());
            }
        } else {
            List<String> under = segments(root.uri().get());
            List<String> all = segments(file.uri().get());
            if (all.size() <= under.size()) {
                throw unnamed(source, file, "it is not below the location downloaded");
            }
            segments = all.subList(under.size(), all.size());
        }
        for (String s : segments) {
            if (!plainName(s)) {
                throw unnamed(source, file, "its path holds a segment that is no plain file name");
            }
        }
        return String.join("/", segments);
    }

    /** @return the decoded path segments of a URI, without the empty ones its leading and final slash make */
    private static List<String> segments(URI uri) {
        String path = uri.getPath() == null ? "" : uri.getPath();
        List<String> segments = new ArrayList<>(Arrays.asList(path.split("/", -1)));
        if (!segments.isEmpty() && segments.get(0).isEmpty()) {
            segments.remove(0);
        }
        if (!segments.isEmpty() && segments.get(segments.size() - 1).isEmpty()) {
            segments.remove(segments.size() - 1);
        }
        return segments;
    }

    /** @return whether a segment names one file here: not empty, {@code .} or {@code ..}, one name of this system */
    private static boolean plainName(String s) {
        if (s.isEmpty() || s.equals(".") || s.equals("..") || s.indexOf('\0') >= 0 || s.indexOf('/') >= 0) {
            return false;
        }
        try {
            Path p = Path.of(s);
            return !p.isAbsolute() && p.getNameCount() == 1 && p.getRoot() == null && p.toString().equals(s);
        } catch (InvalidPathException e) {
            return false;
        }
    }

    private static InvalidLocationException unnamed(Location source, Location file, String why) {
        return new InvalidLocationException(ErrorCode.INVALID_SOURCE, source.display() + ": cannot name a local"
                + " file after " + file.display() + " (" + why + ")");
    }

    /** A file's header check: the version it was validated at, if any, and what the check cost. */
    private record Validated(Optional<String> version, SourceStatistics cost) {
    }

    /**
     * Validates every {@code .safetensors} header before any payload is fetched; nothing stays open.
     *
     * @throws IOException the first failure in file order: an invalid header (unless forced), a source that cannot
     *                     be opened or read
     */
    private List<Validated> validate(List<Named> files) throws IOException {
        List<Location> checked = new ArrayList<>();
        for (Named f : files) {
            if (f.location().fileName().endsWith(Location.FILE_SUFFIX)) {
                checked.add(f.location());
            }
        }
        Iterator<ShardHeaders.Read> reads = ShardHeaders.read(checked, client, false).iterator();
        List<Validated> versions = new ArrayList<>();
        for (Named f : files) {
            if (!f.location().fileName().endsWith(Location.FILE_SUFFIX)) {
                versions.add(new Validated(Optional.empty(), SourceStatistics.NONE));
                continue;
            }
            ShardHeaders.Read r = reads.next();
            Optional<IOException> failure = r.verdict().failure();
            if (failure.isPresent() && !(request.force() && failure.get() instanceof InvalidHeaderException)) {
                throw failure.get();
            }
            versions.add(new Validated(Optional.ofNullable(r.version()), r.verdict().cost()));
        }
        return versions;
    }

    /** Downloads one file from a source opened again, pinned to the version its header was validated at. */
    private DownloadedFile fetch(Named file, Validated checked, DownloadTarget target) throws IOException {
        try (DownloadTarget.Slot slot = target.slot(file.location(), file.relative());
             RandomAccessSource source = client.registry().open(file.location())) {
            request.listener().starting(file.location(), source.size());
            long[] seen = {0};
            FileDownload.Result r = FileDownload.builder(source, slot::place).limits(client.limits())
                    .readOptions(client.readOptions()).force(request.force()).headerChecked(true)
                    .expectedVersion(checked.version().orElse(null)).progress(heldNow -> {
                        request.listener().fetched(heldNow - seen[0]);
                        seen[0] = heldNow;
                    }).build().run();
            Path path = slot.publish(r.target());
            // the whole source's count, its size probe included, not only the run's
            SourceStatistics cost = checked.cost().plus(source.statistics()).plus(slot.cost());
            return new DownloadedFile(file.location(), path, Optional.of(r), cost);
        }
    }
}
