package dev.safetensors.core;

import dev.safetensors.CheckpointLimits;
import dev.safetensors.Limits;
import dev.safetensors.ListOptions;
import dev.safetensors.Location;

import dev.safetensors.SafetensorsHeader;
import dev.safetensors.SourceStatistics;

import dev.safetensors.spi.UploadOptions;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * The one configured client every surface works through (the command, Spark, the examples, an application): the
 * {@link SourceRegistry} that opens and lists every location (the index, every shard, {@code config.json},
 * repository and prefix listings), the {@link Limits} every header is held to, the {@link CheckpointLimits} every
 * index, {@code config.json}, repository listing and manifest is held to, the
 * {@link ReadOptions} tensor reads use, the {@link ListOptions} listings use, and how many sources the checkpoint
 * workflows read at once. Every object it opens ({@link Checkpoint}, {@link CheckpointFiles}) remembers it, so no
 * later step of a workflow can fall back to a default.
 *
 * <p>Built once and shared, as {@code OkHttpClient} is: immutable and thread-safe; {@link #newBuilder()} makes a
 * variant that shares this one's registry. The static shortcuts ({@link Checkpoint#open(String)} and its kin) are
 * one-liners over {@link #defaultClient()}.
 *
 * <pre>{@code
 * try (SourceRegistry registry = SourceRegistry.builder().provider(new S3SourceProvider(s3)).build()) {
 *     SafetensorsClient client = SafetensorsClient.builder().registry(registry).limits(Limits.OFFICIAL).build();
 *     try (Checkpoint c = client.openCheckpoint(Location.parse("s3://bucket/model.safetensors.index.json"))) { ... }
 * }
 * }</pre>
 *
 * <p>The client does not own its registry: closing it is the caller's job.
 */
public final class SafetensorsClient {
    /** Default number of sources the checkpoint workflows read at once: {@value}. */
    public static final int DEFAULT_CONCURRENCY = 8;
    /** Largest number of sources the checkpoint workflows read at once: {@value}. */
    public static final int MAX_CONCURRENCY = 256;

    private static final SafetensorsClient DEFAULT = new Builder().build();

    private final SourceRegistry registry;
    private final Limits limits;
    private final CheckpointLimits checkpointLimits;
    private final ReadOptions readOptions;
    private final ListOptions listOptions;
    private final int concurrency;

    private SafetensorsClient(Builder b) {
        this.registry = b.registry;
        this.limits = b.limits;
        this.checkpointLimits = b.checkpointLimits;
        this.readOptions = b.readOptions;
        this.listOptions = b.listOptions;
        this.concurrency = b.concurrency;
    }

    /**
     * @return the client of the installed providers ({@link Sources}' registry), {@link Limits#STRICT},
     *         {@link CheckpointLimits#DEFAULT},
     *         {@link ReadOptions#DEFAULT}, {@link ListOptions#DEFAULT} and {@value #DEFAULT_CONCURRENCY} sources at once
     */
    public static SafetensorsClient defaultClient() {
        return DEFAULT;
    }

    /** @return a builder with the {@link #defaultClient()} values */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder starting from this client's settings and registry */
    public Builder newBuilder() {
        Builder b = new Builder().limits(limits).checkpointLimits(checkpointLimits).readOptions(readOptions).listOptions(listOptions)
                .concurrency(concurrency);
        b.registry = registry;
        return b;
    }

    /** @return the registry that opens and lists every location */
    public SourceRegistry registry() {
        // the default registry is built on first use, so a client that only ever sees local files loads no backend
        return registry != null ? registry : Sources.defaultRegistry();
    }

    /** @return the policy for headers */
    public Limits limits() {
        return limits;
    }

    /** @return the bounds of indexes, {@code config.json} files, repository listings and manifests */
    public CheckpointLimits checkpointLimits() {
        return checkpointLimits;
    }

    /** @return how tensor bytes are fetched from remote shards */
    public ReadOptions readOptions() {
        return readOptions;
    }

    /** @return how prefixes and folders are listed */
    public ListOptions listOptions() {
        return listOptions;
    }

    /** @return how many sources the checkpoint workflows read at once */
    public int concurrency() {
        return concurrency;
    }

    /**
     * Opens a checkpoint, every location (the index, each shard, a repository listing) opened through this client.
     *
     * @param location a file, an index, a folder or prefix holding one checkpoint, or a repository
     * @return the open checkpoint; it remembers this client
     * @throws IOException if nothing is found there, a header or the index is invalid, they disagree, or a read fails
     */
    public Checkpoint openCheckpoint(Location location) throws IOException {
        return openCheckpoint(locate(location));
    }

    /**
     * @param files a checkpoint this client (or one sharing its registry) located
     * @return the open checkpoint
     * @throws IOException the first shard's failure in shard order, else the index's disagreement with the shards
     */
    public Checkpoint openCheckpoint(CheckpointFiles files) throws IOException {
        return Checkpoint.open(files, this);
    }

    /**
     * @param location a file, an index, a folder or prefix holding one checkpoint, or a repository
     * @return its files; for a repository, its root checkpoint or else the first listed
     * @throws IOException as {@link #locate(Location, String)}
     */
    public CheckpointFiles locate(Location location) throws IOException {
        return CheckpointFiles.locate(location, null, this);
    }

    // ---- checking: one check of files and checkpoints, for every surface ----

    /**
     * @param location a file, an index, a folder or prefix (the first of
     *                 {@link dev.safetensors.RepositoryCheckpoint#FILE_NAMES} it holds, else its only index, else its
     *                 only {@code .safetensors} file), or a repository
     * @param folder   for a repository, the folder of the checkpoint to pick ({@code ""} for the root), or
     *                 {@code null} for the default choice (the root's, else the first listed); ignored otherwise
     * @return its files, found through this client's registry and under its limits
     * @throws IOException a {@link dev.safetensors.SourceNotFoundException} if a repository holds no checkpoint (in
     *                     that folder); an {@link dev.safetensors.InvalidLocationException} with
     *                     {@link dev.safetensors.ErrorCode#INVALID_SOURCE} if a listing holds more than
     *                     {@link CheckpointLimits#maxCheckpointsPerListing()} checkpoints; whatever reading the index or listing
     *                     the repository throws
     */
    public CheckpointFiles locate(Location location, String folder) throws IOException {
        return CheckpointFiles.locate(location, folder, this);
    }

    /**
     * @param location a file, an index, a folder or prefix holding one checkpoint, or a repository
     * @return every checkpoint there: one for a file, an index or a folder, each listed one for a repository (the
     *         listing's request counted with the first)
     * @throws IOException as {@link #locate(Location, String)}
     */
    public List<CheckpointFiles> locateAll(Location location) throws IOException {
        return CheckpointFiles.locateAll(location, this);
    }

    /**
     * Checks every file of every checkpoint at the locations, {@link #concurrency()} files at a time: each file's
     * header read through this client's registry and validated under its limits ({@link ShardVerdict}), then the
     * checkpoint's verdict ({@link CheckpointVerdict}: located, every file passed, the index and the shards agree).
     * Results come in the locations' order, each checkpoint's files in shard order and then the checkpoint; reads go
     * on behind a slow one, so at most four times {@link #concurrency()} results are held, and no source stays open. A location that cannot be located gives a
     * failed checkpoint verdict and no file verdict. Locations are located one after the other as the reads need
     * more, on the consumer's thread.
     *
     * <pre>{@code
     * try (CheckResults<CheckVerdict> results = client.check(List.of(Location.parse("hf://acme/model")))) {
     *     while (results.hasNext()) {
     *         CheckVerdict v = results.next();
     *         ...
     *     }
     * }
     * }</pre>
     *
     * @param locations files, indexes, folders or prefixes holding one checkpoint, repositories
     * @return the verdicts, to take in order and close
     */
    public CheckResults<CheckVerdict> check(List<Location> locations) {
        Iterator<Location> at = List.copyOf(locations).iterator();
        Iterator<CheckResults.Located> located = new Iterator<>() {
            private final ArrayDeque<CheckResults.Located> ready = new ArrayDeque<>();

            @Override
            public boolean hasNext() {
                while (ready.isEmpty() && at.hasNext()) {
                    Location l = at.next();
                    try {
                        for (CheckpointFiles files : locateAll(l)) {
                            ready.add(new CheckResults.Located(files.location(), files, null));
                        }
                    } catch (IOException e) {
                        ready.add(new CheckResults.Located(l, null, e));
                    }
                }
                return !ready.isEmpty();
            }

            @Override
            public CheckResults.Located next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return ready.poll();
            }
        };
        return new CheckResults<>(located, new HeaderVerdicts(this), concurrency);
    }

    /**
     * Checks located checkpoints as {@link #check(List)} does (the order, the bound, the checkpoint's rules, its
     * verdict after its files), each file examined by the handler instead of by its header alone: the command's
     * digest check, a table's rows.
     *
     * @param checkpoints the checkpoints, taken in order on the consumer's thread as the reads need more
     * @param handler     examines each file and shapes each result
     * @param <T>         the handler's result type
     * @return the results, to take in order and close
     */
    public <T> CheckResults<T> check(Iterator<CheckpointFiles> checkpoints, CheckHandler<T> handler) {
        Objects.requireNonNull(checkpoints, "checkpoints");
        Objects.requireNonNull(handler, "handler");
        Iterator<CheckResults.Located> located = new Iterator<>() {
            @Override
            public boolean hasNext() {
                return checkpoints.hasNext();
            }

            @Override
            public CheckResults.Located next() {
                CheckpointFiles files = checkpoints.next();
                return new CheckResults.Located(files.location(), files, null);
            }
        };
        return new CheckResults<>(located, handler, concurrency);
    }

    /**
     * Reads a checkpoint's metadata ({@link CheckpointMetadata}): it is opened through this client (every header
     * read and the index cross-checked), and its {@code config.json}, when it has one, read for the parameter
     * counting.
     *
     * @param files a checkpoint this client (or one sharing its registry) located
     * @return its metadata
     * @throws IOException as {@link #openCheckpoint(CheckpointFiles)}
     */
    public CheckpointMetadata readMetadata(CheckpointFiles files) throws IOException {
        return CheckpointMetadata.read(files, this);
    }

    /**
     * @param location a file, an index, a folder or prefix holding one checkpoint, or a repository
     * @return the metadata of every checkpoint there ({@link #locateAll}); the listing's request counted in the first
     * @throws IOException as {@link #locateAll} and {@link #readMetadata(CheckpointFiles)}
     */
    public List<CheckpointMetadata> readAllMetadata(Location location) throws IOException {
        List<CheckpointMetadata> all = new ArrayList<>();
        for (CheckpointFiles files : locateAll(location)) {
            all.add(readMetadata(files));
        }
        return List.copyOf(all);
    }

    /**
     * The metadata of a checkpoint that {@link #check} found valid, from the headers its file verdicts gave: only
     * its {@code config.json} is read, for the parameter counting, so no header is requested twice.
     *
     * @param files   a checkpoint this client located and found valid
     * @param headers the validated header of each of its files, in shard order
     * @param cost    the requests checking it took
     * @return its metadata; the cost is the check's and the config's
     * @throws IOException if reading the config fails
     * @throws IllegalArgumentException if the headers are not one per file
     */
    public CheckpointMetadata metadata(CheckpointFiles files, List<SafetensorsHeader> headers, SourceStatistics cost)
            throws IOException {
        if (headers.size() != files.shards().size()) {
            throw new IllegalArgumentException("metadata needs one header per file: " + headers.size() + " for "
                    + files.shards().size());
        }
        return CheckpointMetadata.of(files, headers, cost, this);
    }

    // --- select and download: the listing selection and the download service ---

    /**
     * Lists a folder, prefix or repository through this client's registry and {@link ListOptions} and keeps the
     * entries the selection keeps ({@link PrefixSelection} says how unwalked entries are kept), lazily: memory stays
     * flat however long the listing, and {@link PrefixSelection#cost()} counts its requests.
     *
     * @param where     the folder, prefix or repository
     * @param selection the names to keep and whether to walk every level
     * @return the selection, before its first entry; the caller closes it
     * @throws IOException if the listing cannot start (see {@link SourceRegistry#list})
     */
    public PrefixSelection select(Location where, Selection selection) throws IOException {
        return PrefixSelection.open(registry(), where, listOptions, selection);
    }

    /**
     * Downloads the files of a location into a local folder, as {@link #download(Location, DownloadTarget,
     * DownloadRequest)} with {@link DownloadTarget#folder(Path)}: each under {@code folder} by its path below the
     * location (a file's or an index's folder), its partial file and version record beside it.
     *
     * @param source  a file, an index, a repository, a folder or a prefix
     * @param folder  the folder the files go under; created when the first file is written
     * @param request the globs, force, bounds and listener
     * @return what was done, file by file
     * @throws IOException as {@link #download(Location, DownloadTarget, DownloadRequest)}
     */
    public DownloadResult download(Location source, java.nio.file.Path folder, DownloadRequest request)
            throws IOException {
        return download(source, DownloadTarget.folder(folder), request);
    }

    /**
     * Downloads the files a location names (see {@link DownloadRequest} for which): every {@code .safetensors}
     * file's header, recognised by its {@linkplain Location#fileName() file name} (a URL's query does not hide it),
     * is validated before any payload byte of any file is fetched, {@link ReadOptions#parallelism()} sources at a
     * time; then each file is fetched with {@link FileDownload} (parallel parts, resumed only against the version
     * its partial file records, its SHA-256 checked where the store publishes one) from a source pinned to the
     * version validated, and placed by the target. Messages name locations by their {@link Location#display()}
     * form.
     *
     * @param source  a file, an index, a repository, a folder or a prefix
     * @param target  where the files go
     * @param request the globs, force, bounds and listener
     * @return what was done, file by file, and what finding the files cost
     * @throws IOException the first failure: nothing selected ({@code NOT_FOUND}), more files than
     *                     {@link DownloadRequest#maxFiles()} ({@code INVALID_LISTING}), a file that cannot be named
     *                     safely under the output ({@code INVALID_SOURCE}), an entry that is no file
     *                     ({@code NOT_A_FILE}), an invalid header unless forced, a changed source or a digest mismatch
     *                     ({@code SOURCE_CHANGED}), a failed request or write; files already done stay
     */
    public DownloadResult download(Location source, DownloadTarget target, DownloadRequest request)
            throws IOException {
        return new CheckpointDownload(this, request).run(source, target);
    }

    /**
     * Mirrors the files a location names (chosen as {@link #download(Location, DownloadTarget, DownloadRequest)}
     * chooses them, every {@code .safetensors} header validated before any payload byte is fetched) into a store
     * prefix, through the registry's {@linkplain SourceRegistry#writer writer} of it: a Hub repository copied into a
     * bucket. Each file streams from a source pinned to the version validated, in {@link ReadOptions} parts, into an
     * upload of {@code uploads}' parts, and commits only once its SHA-256 equals the one the source's store published
     * (when it publishes one) and the destination's checksum matched the bytes sent; every other file first, the
     * indexes last, so the moment an index appears every file it names is whole. An existing object of the same
     * name is refused unless {@link DownloadRequest#force()}, which replaces it (an old index under the prefix is
     * then deleted before a file of its checkpoint is overwritten). Nothing under the prefix outside the mirrored
     * set is deleted, and nothing but the mirrored files is written there. The listener is told of each file's start
     * and bytes; the objects are in the result.
     *
     * @param source  a file, an index, a repository, a folder or a prefix
     * @param prefix  the store prefix, ending in {@code /}, of a store the registry writes
     * @param request the globs, force, bounds and listener
     * @param uploads part size and parallelism of each upload
     * @return the objects committed, and what finding the files cost
     * @throws IOException as {@link #download(Location, DownloadTarget, DownloadRequest)}; {@code ALREADY_EXISTS}
     *                     naming an object in the way unless forced (nothing written); {@code UNSUPPORTED_SCHEME} for
     *                     a prefix no writer serves; files committed before a failure stay, and no index is written
     *                     after one
     */
    public MirrorResult mirror(Location source, Location prefix, DownloadRequest request, UploadOptions uploads)
            throws IOException {
        Objects.requireNonNull(uploads, "uploads");
        if (!prefix.isFolder()) {
            throw new IllegalArgumentException("not a prefix (no trailing '/'): " + prefix.display());
        }
        return new CheckpointDownload(this, request).mirror(source, prefix, uploads);
    }

    // --- end of select and download ---

    @Override
    public String toString() {
        return "SafetensorsClient{registry=" + (registry == null ? "installed" : registry) + ", limits=" + limits
                + ", checkpointLimits=" + checkpointLimits + ", readOptions=" + readOptions + ", listOptions=" + listOptions + ", concurrency=" + concurrency + '}';
    }

    /** Builds a {@link SafetensorsClient}; starts from the {@linkplain #defaultClient() default} settings. Not thread-safe. */
    public static final class Builder {
        /** {@code null} until one is given: the default registry, built when first asked for. */
        private SourceRegistry registry;
        private Limits limits = Limits.STRICT;
        private CheckpointLimits checkpointLimits = CheckpointLimits.DEFAULT;
        private ReadOptions readOptions = ReadOptions.DEFAULT;
        private ListOptions listOptions = ListOptions.DEFAULT;
        private int concurrency = DEFAULT_CONCURRENCY;

        private Builder() {
        }

        /**
         * @param registry opens and lists every location; the caller keeps ownership
         * @return this builder
         */
        public Builder registry(SourceRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * @param limits the policy for headers
         * @return this builder
         */
        public Builder limits(Limits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /**
         * @param checkpointLimits the bounds of indexes, {@code config.json} files, repository listings and manifests
         * @return this builder
         */
        public Builder checkpointLimits(CheckpointLimits checkpointLimits) {
            this.checkpointLimits = Objects.requireNonNull(checkpointLimits, "checkpointLimits");
            return this;
        }

        /**
         * @param readOptions how tensor bytes are fetched from remote shards
         * @return this builder
         */
        public Builder readOptions(ReadOptions readOptions) {
            this.readOptions = Objects.requireNonNull(readOptions, "readOptions");
            return this;
        }

        /**
         * @param listOptions how prefixes and folders are listed
         * @return this builder
         */
        public Builder listOptions(ListOptions listOptions) {
            this.listOptions = Objects.requireNonNull(listOptions, "listOptions");
            return this;
        }

        /**
         * @param concurrency how many sources the checkpoint workflows read at once, 1 to {@value #MAX_CONCURRENCY}
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder concurrency(int concurrency) {
            if (concurrency < 1 || concurrency > MAX_CONCURRENCY) {
                throw new IllegalArgumentException("concurrency must be 1 to " + MAX_CONCURRENCY + ": " + concurrency);
            }
            this.concurrency = concurrency;
            return this;
        }

        /** @return the client */
        public SafetensorsClient build() {
            return new SafetensorsClient(this);
        }
    }
}
