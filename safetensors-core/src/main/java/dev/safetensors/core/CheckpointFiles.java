package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.RepositoryCheckpoint;
import dev.safetensors.RepositoryListing;
import dev.safetensors.SourceIdentity;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.SourceStatistics;
import dev.safetensors.spi.SourceNames;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where the files of one logical checkpoint are, found from what a user names:
 * <ul>
 *   <li>a single {@code .safetensors} file (a path or a URI): itself;</li>
 *   <li>a {@code *.safetensors.index.json} ({@link Location#isIndex()}), local or remote: the index, read with
 *       {@link ShardIndex#read(RandomAccessSource, dev.safetensors.CheckpointLimits)} under the options' limits, and its
 *       shards named by the index, placed by the provider of the index ({@link SourceRegistry#sibling}: beside it,
 *       and pinned to the revision it was read at where the storage has revisions);</li>
 *   <li>a repository location, which a provider lists ({@link RandomAccessSourceProvider#listCheckpoints}): one of
 *       the checkpoints it holds, the one in the folder asked for, or else the root's, or else the first listed (the
 *       main module of a diffusers pipeline).</li>
 * </ul>
 * Every location is opened and listed through the options' {@link SourceRegistry}. Nothing here reads a shard;
 * {@link Checkpoint} opens them. Immutable and thread-safe.
 */
public final class CheckpointFiles {
    private final Location location;
    private final String folder;
    private final Location file;
    private final ShardIndex index;
    private final List<Location> shards;
    private final Location config;
    private final SourceIdentity identity;
    private final SourceStatistics cost;

    private CheckpointFiles(Location location, String folder, Location file, ShardIndex index, List<Location> shards,
                            Location config, SourceIdentity identity, SourceStatistics cost) {
        this.location = location;
        this.folder = folder;
        this.file = file;
        this.index = index;
        this.shards = List.copyOf(shards);
        this.config = config;
        this.identity = identity;
        this.cost = cost;
    }

    /**
     * @param location a file, an index, or a repository, as a path or a URI ({@link Location#parse})
     * @return its files, found through the {@linkplain SafetensorsClient#defaultClient() default client} as
     *         {@link SafetensorsClient#locate(Location)} finds them; for a repository, its root checkpoint or else the
     *         first listed
     * @throws IOException if nothing can be found there, the index is invalid, or a request fails
     */
    public static CheckpointFiles locate(String location) throws IOException {
        return SafetensorsClient.defaultClient().locate(Location.parse(location));
    }

    /**
     * A single file as named, with no request: for a caller that already knows what the location is (a listing's
     * entry), to check it ({@link SafetensorsClient#check}) beside located checkpoints. The file is taken as itself,
     * never located: an index given here is one file (the command's manifests digest index files this way), and
     * locating its checkpoint is {@link SafetensorsClient#locate}'s.
     *
     * @param file a file, local or remote
     * @return its files: itself alone, with the {@code config.json} beside a local file
     */
    public static CheckpointFiles ofFile(Location file) {
        return new CheckpointFiles(file, "", file, null, List.of(file), localConfig(file), SourceIdentity.NONE,
                SourceStatistics.NONE);
    }

    /** What {@link SafetensorsClient#locate(Location, String)} does. */
    static CheckpointFiles locate(Location at, String folder, SafetensorsClient options) throws IOException {
        Optional<RepositoryListing> listing = listing(at, options);
        if (listing.isEmpty()) {
            return ofLocation(at, options);
        }
        RepositoryListing l = listing.get();
        return ofRepository(at, l, choose(at, l, folder), options);
    }

    /**
     * @param location a file, an index, or a repository
     * @return every checkpoint there, found through the default options
     * @throws IOException if nothing can be found there, an index is invalid, or a request fails
     */
    public static List<CheckpointFiles> locateAll(String location) throws IOException {
        return SafetensorsClient.defaultClient().locateAll(Location.parse(location));
    }

    /** What {@link SafetensorsClient#locateAll(Location)} does. */
    static List<CheckpointFiles> locateAll(Location at, SafetensorsClient options) throws IOException {
        Optional<RepositoryListing> listing = listing(at, options);
        if (listing.isEmpty()) {
            return List.of(ofLocation(at, options));
        }
        RepositoryListing l = listing.get();
        if (l.checkpoints().isEmpty()) {
            throw none(at, l, null);
        }
        List<CheckpointFiles> all = new ArrayList<>();
        for (RepositoryCheckpoint c : l.checkpoints()) {
            // the one listing request is counted once, with the first checkpoint
            all.add(ofRepository(at, all.isEmpty() ? l : withoutCost(l), c, options));
        }
        return all;
    }

    private static RepositoryListing withoutCost(RepositoryListing l) {
        return new RepositoryListing(l.repository(), l.commit(), l.checkpoints(), SourceStatistics.NONE);
    }

    private static Optional<RepositoryListing> listing(Location location, SafetensorsClient options)
            throws IOException {
        if (location.isLocal() && location.uri().isEmpty() && location.looksLikeUri()) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, location.display() + ": not a valid URI");
        }
        refuseInterruptedCommit(location);
        Optional<RepositoryListing> listing = options.registry().listCheckpoints(location);
        int max = options.checkpointLimits().maxCheckpointsPerListing();
        if (listing.isPresent() && listing.get().checkpoints().size() > max) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, location.display() + ": the repository"
                    + " holds " + listing.get().checkpoints().size() + " checkpoints, more than the limit of " + max);
        }
        return listing;
    }

    private static RepositoryCheckpoint choose(Location location, RepositoryListing l, String folder)
            throws IOException {
        for (RepositoryCheckpoint c : l.checkpoints()) {
            if (folder == null ? c.folder().isEmpty() : c.folder().equals(folder)) {
                return c;
            }
        }
        if (folder == null && !l.checkpoints().isEmpty()) {
            return l.checkpoints().get(0);
        }
        throw none(location, l, folder);
    }

    private static SourceNotFoundException none(Location location, RepositoryListing l, String folder) {
        String where = folder == null ? "" : " in folder '" + SourceNames.clip(folder) + "'";
        String found = l.checkpoints().isEmpty() ? "" : "; it has checkpoints in: " + String.join(", ",
                l.checkpoints().stream().map(c -> c.folder().isEmpty() ? "(root)" : c.folder()).toList());
        return new SourceNotFoundException(location.display(), "repository " + l.repository() + " at " + l.commit()
                + " holds no safetensors checkpoint" + where + found);
    }

    private static CheckpointFiles ofRepository(Location location, RepositoryListing l, RepositoryCheckpoint c,
                                                SafetensorsClient options) throws IOException {
        SourceIdentity identity = new SourceIdentity(null, null, l.repository(), l.commit(), null);
        return ofFile(location, c.file(), c.folder(), c.config().orElse(null),
                identity, l.cost(), options);
    }

    /**
     * A local folder that a writer was killed in, after its commit point and before its last rename, holds a commit
     * journal ({@link CommitJournal}) and may hold a mix of old and new files: refused here, before anything is read,
     * with {@link dev.safetensors.ErrorCode#INTERRUPTED_COMMIT}. A read never finishes the commit: the journal may
     * have been planted, and only a writer (or {@code safetensors recover}) rolls one forward, once it has checked
     * that a writer made it.
     */
    private static void refuseInterruptedCommit(Location location) throws IOException {
        if (!location.isLocal()) {
            return;
        }
        Path path;
        try {
            path = location.path();
        } catch (IllegalArgumentException e) {
            return; // not a path of this file system: opening it reports why
        }
        Path folder = location.isFolder() || Files.isDirectory(path) ? path : path.toAbsolutePath().getParent();
        if (folder != null) {
            CommitJournal.requireFinished(folder);
        }
    }

    /** A file or an index as named, or the checkpoint a folder or prefix holds. */
    private static CheckpointFiles ofLocation(Location at, SafetensorsClient options) throws IOException {
        if (!isFolder(at)) {
            return ofFile(at, at, "", null, SourceIdentity.NONE, SourceStatistics.NONE, options);
        }
        try (Listing listing = options.registry().list(at, ListOptions.DEFAULT)) {
            Location file = checkpointIn(at, listing);
            return ofFile(at, file, "", null, SourceIdentity.NONE, listing.cost(), options);
        }
    }

    /** @return whether the location is a folder or prefix: written with a final slash, or a local folder */
    static boolean isFolder(Location at) {
        if (at.isFolder()) {
            return true;
        }
        if (!at.isLocal()) {
            return false;
        }
        try {
            return Files.isDirectory(at.path());
        } catch (IllegalArgumentException e) {
            return false; // not a path of this file system: opening it reports why
        }
    }

    /**
     * The checkpoint one level of a folder holds: the first of {@link RepositoryCheckpoint#FILE_NAMES} present,
     * else its only index, else (no index) its only {@code .safetensors} file. Only counts and the first of each
     * kind are kept, so a prefix of a million objects costs its listing's pages and no memory.
     */
    private static Location checkpointIn(Location folder, Listing listing) throws IOException {
        int preferred = RepositoryCheckpoint.FILE_NAMES.size();
        Location best = null;
        Location firstIndex = null;
        Location firstFile = null;
        long indexes = 0;
        long files = 0;
        while (listing.hasNext()) {
            ListEntry e = listing.next();
            if (!e.isFile()) {
                continue;
            }
            String name = PrefixSelection.name(e.location());
            int rank = RepositoryCheckpoint.FILE_NAMES.indexOf(name);
            if (rank >= 0 && rank < preferred) {
                preferred = rank;
                best = e.location();
            }
            if (name.endsWith(Location.INDEX_SUFFIX)) {
                firstIndex = indexes++ == 0 ? e.location() : firstIndex;
            } else if (name.endsWith(Location.FILE_SUFFIX)) {
                firstFile = files++ == 0 ? e.location() : firstFile;
            }
        }
        if (best != null) {
            return best;
        }
        if (indexes == 1) {
            return firstIndex;
        }
        if (indexes == 0 && files == 1) {
            return firstFile;
        }
        if (indexes == 0 && files == 0) {
            throw new SourceNotFoundException(folder.display(), "holds no .safetensors file or index");
        }
        throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, folder.display() + ": holds "
                + (indexes > 0 ? indexes + " indexes" : files + " .safetensors files") + " and none of "
                + String.join(", ", RepositoryCheckpoint.FILE_NAMES) + ": name the file or the index to open");
    }

    private static CheckpointFiles ofFile(Location name, Location file, String folder, Location config,
                                          SourceIdentity identity, SourceStatistics cost, SafetensorsClient options)
            throws IOException {
        if (config == null) {
            config = localConfig(file);
        }
        if (!file.isIndex()) {
            return new CheckpointFiles(name, folder, file, null, List.of(file), config, identity, cost);
        }
        try (RandomAccessSource source = options.registry().open(file)) {
            ShardIndex index;
            try {
                index = ShardIndex.read(source, options.checkpointLimits());
            } finally {
                cost = cost.plus(source.statistics());
            }
            SourceIdentity read = source.identity();
            if (identity.revision() == null && read.revision() != null) {
                identity = new SourceIdentity(null, null, read.repository(), read.revision(), null);
            }
            List<Location> shards = new ArrayList<>();
            for (String shard : index.shards()) {
                shards.add(options.registry().sibling(file, shard, read));
            }
            return new CheckpointFiles(name, folder, file, index, shards, config, identity, cost);
        }
    }

    /** @return the {@code config.json} beside a local file, if there is one (no request: it is a local lookup) */
    private static Location localConfig(Location file) {
        if (!file.isLocal()) {
            return null;
        }
        Path parent;
        try {
            parent = file.path().toAbsolutePath().getParent();
        } catch (IllegalArgumentException e) {
            return null;
        }
        Path config = parent == null ? null : parent.resolve("config.json");
        return config != null && Files.isRegularFile(config) ? Location.of(config) : null;
    }

    /** @return the location as given */
    public Location location() {
        return location;
    }

    /** @return the location as given, in its {@linkplain Location#display() display} form */
    public String name() {
        return location.display();
    }

    /** @return the folder inside a repository, {@code ""} for its root or for a file or index */
    public String folder() {
        return folder;
    }

    /** @return the single file or the index */
    public Location file() {
        return file;
    }

    /** @return the parsed index, for a sharded checkpoint */
    public Optional<ShardIndex> index() {
        return Optional.ofNullable(index);
    }

    /** @return whether the checkpoint is sharded (has an index) */
    public boolean isSharded() {
        return index != null;
    }

    /**
     * @return the location of every shard, in the order the index first names them (parallel to
     *         {@link ShardIndex#shards()}); for a single file, that file alone
     */
    public List<Location> shards() {
        return shards;
    }

    /** @return the {@code config.json} beside the checkpoint: named by a repository listing, or beside a local file */
    public Optional<Location> config() {
        return Optional.ofNullable(config);
    }

    /** @return the repository and revision (commit) the files were found in, where known */
    public SourceIdentity identity() {
        return identity;
    }

    /** @return {@link #identity()} as attributes ({@code repository} and {@code revision}), for output */
    public Map<String, String> attributes() {
        return identity.toAttributes();
    }

    /** @return the requests made to find the files and read the index */
    public SourceStatistics cost() {
        return cost;
    }

    @Override
    public String toString() {
        return "CheckpointFiles[" + file + ", " + shards.size() + " file" + (shards.size() == 1 ? "" : "s") + "]";
    }
}
