package dev.safetensors.core;

import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.RepositoryCheckpoint;
import dev.safetensors.RepositoryListing;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.SourceStatistics;
import dev.safetensors.spi.SourceNames;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Where the files of one logical checkpoint are, found from what a user names:
 * <ul>
 *   <li>a single {@code .safetensors} file (a path or a URI): itself;</li>
 *   <li>a {@code *.safetensors.index.json}, local or remote: the index, read with {@link ShardIndex#read} (the one
 *       index parser, one 64 MiB limit), and its shards beside it, named by the index. On the Hub, shards are pinned
 *       to the commit the index was read at;</li>
 *   <li>a repository location, which a provider lists ({@link RandomAccessSourceProvider#listCheckpoints}, e.g.
 *       {@code hf://acme/model}): one of the checkpoints it holds, the one in the folder asked for, or else the
 *       root's, or else the first listed (the main module of a diffusers pipeline).</li>
 * </ul>
 * Nothing here reads a shard; {@link Checkpoint} opens them. Immutable and thread-safe.
 */
public final class CheckpointFiles {
    /** The file name suffix of a sharded checkpoint's index. */
    public static final String INDEX_SUFFIX = ".safetensors.index.json";

    private final String name;
    private final String folder;
    private final String file;
    private final ShardIndex index;
    private final List<String> shards;
    private final String config;
    private final Map<String, String> attributes;
    private final SourceStatistics cost;

    private CheckpointFiles(String name, String folder, String file, ShardIndex index, List<String> shards,
                            String config, Map<String, String> attributes, SourceStatistics cost) {
        this.name = name;
        this.folder = folder;
        this.file = file;
        this.index = index;
        this.shards = List.copyOf(shards);
        this.config = config;
        this.attributes = Map.copyOf(attributes);
        this.cost = cost;
    }

    /**
     * @param location a file, an index, or a repository, as a path or a URI ({@link Sources#asUri})
     * @return its files; for a repository, its root checkpoint or else the first listed
     * @throws IOException if nothing can be found there, the index is invalid, or a request fails
     */
    public static CheckpointFiles locate(String location) throws IOException {
        return locate(location, null);
    }

    /**
     * @param location a file, an index, or a repository
     * @param folder   for a repository, the folder of the checkpoint to pick ({@code ""} for the root), or
     *                 {@code null} for the default choice; ignored for a file or an index
     * @return its files
     * @throws IOException a {@link SourceNotFoundException} if a repository holds no checkpoint (in that folder);
     *                     whatever reading the index or listing the repository throws
     */
    public static CheckpointFiles locate(String location, String folder) throws IOException {
        return locate(location, folder, null);
    }

    /**
     * As {@link #locate(String, String)}, with remote locations opened and listed by the given provider, such as
     * one configured with other client settings than the installed providers'.
     *
     * @param location a file, an index, or a repository
     * @param folder   for a repository, the folder of the checkpoint to pick, or {@code null}
     * @param storage  opens and lists every URI location (it is asked whether it {@linkplain
     *                 RandomAccessSourceProvider#supports supports} each); {@code null} for the installed providers.
     *                 Local paths are always opened as local files
     * @return its files
     * @throws IOException as {@link #locate(String, String)}
     */
    public static CheckpointFiles locate(String location, String folder, RandomAccessSourceProvider storage)
            throws IOException {
        Optional<RepositoryListing> listing = listing(location, storage);
        if (listing.isEmpty()) {
            return ofFile(location, location, "", null, Map.of(), SourceStatistics.NONE, storage);
        }
        RepositoryListing l = listing.get();
        return ofRepository(location, l, choose(location, l, folder), storage);
    }

    /**
     * @param location a file, an index, or a repository
     * @return every checkpoint there: one for a file or an index, each listed one for a repository
     * @throws IOException if nothing can be found there, an index is invalid, or a request fails
     */
    public static List<CheckpointFiles> locateAll(String location) throws IOException {
        return locateAll(location, null);
    }

    /**
     * @param location a file, an index, or a repository
     * @param storage  opens and lists URI locations, as in {@link #locate(String, String, RandomAccessSourceProvider)};
     *                 {@code null} for the installed providers
     * @return every checkpoint there
     * @throws IOException as {@link #locateAll(String)}
     */
    public static List<CheckpointFiles> locateAll(String location, RandomAccessSourceProvider storage)
            throws IOException {
        Optional<RepositoryListing> listing = listing(location, storage);
        if (listing.isEmpty()) {
            return List.of(ofFile(location, location, "", null, Map.of(), SourceStatistics.NONE, storage));
        }
        RepositoryListing l = listing.get();
        if (l.checkpoints().isEmpty()) {
            throw none(location, l, null);
        }
        List<CheckpointFiles> all = new ArrayList<>();
        for (RepositoryCheckpoint c : l.checkpoints()) {
            // the one listing request is counted once, with the first checkpoint
            all.add(ofRepository(location, all.isEmpty() ? l : withoutCost(l), c, storage));
        }
        return all;
    }

    private static RepositoryListing withoutCost(RepositoryListing l) {
        return new RepositoryListing(l.repository(), l.commit(), l.checkpoints(), SourceStatistics.NONE);
    }

    private static Optional<RepositoryListing> listing(String location, RandomAccessSourceProvider storage)
            throws IOException {
        URI uri = Sources.asUri(location);
        if (uri == null || uri.getScheme().equalsIgnoreCase("file")) {
            return Optional.empty();
        }
        for (RandomAccessSourceProvider p : storage == null ? Sources.providers() : List.of(storage)) {
            if (p.supports(uri)) {
                return p.listCheckpoints(uri);
            }
        }
        return Optional.empty();
    }

    private static RepositoryCheckpoint choose(String location, RepositoryListing l, String folder)
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

    private static SourceNotFoundException none(String location, RepositoryListing l, String folder) {
        String where = folder == null ? "" : " in folder '" + SourceNames.clip(folder) + "'";
        String found = l.checkpoints().isEmpty() ? "" : "; it has checkpoints in: " + String.join(", ",
                l.checkpoints().stream().map(c -> c.folder().isEmpty() ? "(root)" : c.folder()).toList());
        return new SourceNotFoundException(location, "repository " + l.repository() + " at " + l.commit()
                + " holds no safetensors checkpoint" + where + " (model.safetensors, "
                + "diffusion_pytorch_model.safetensors or their .index.json)" + found);
    }

    private static CheckpointFiles ofRepository(String location, RepositoryListing l, RepositoryCheckpoint c,
                                                RandomAccessSourceProvider storage) throws IOException {
        Map<String, String> attributes = new LinkedHashMap<>();
        attributes.put("repository", l.repository());
        attributes.put("revision", l.commit());
        return ofFile(location, c.file().toString(), c.folder(), c.config().map(URI::toString).orElse(null),
                attributes, l.cost(), storage);
    }

    private static CheckpointFiles ofFile(String name, String file, String folder, String config,
                                          Map<String, String> attributes, SourceStatistics cost,
                                          RandomAccessSourceProvider storage) throws IOException {
        if (config == null) {
            config = localConfig(file);
        }
        if (!isIndex(file)) {
            return new CheckpointFiles(name, folder, file, null, List.of(file), config, attributes, cost);
        }
        URI uri = Sources.asUri(file);
        try (RandomAccessSource source = storage == null || uri == null || uri.getScheme().equalsIgnoreCase("file")
                ? Sources.open(file) : storage.open(uri)) {
            ShardIndex index;
            try {
                index = ShardIndex.read(source);
            } finally {
                cost = cost.plus(source.statistics());
            }
            Map<String, String> seen = new LinkedHashMap<>(attributes);
            String revision = source.attributes().get("revision");
            if (revision != null && !seen.containsKey("revision")) {
                seen.put("revision", revision);
                if (source.attributes().containsKey("repository")) {
                    seen.put("repository", source.attributes().get("repository"));
                }
            }
            List<String> shards = new ArrayList<>();
            for (String shard : index.shards()) {
                shards.add(sibling(file, shard, revision));
            }
            return new CheckpointFiles(name, folder, file, index, shards, config, seen, cost);
        }
    }

    /** @return the {@code config.json} beside a local file, if there is one (no request: it is a local lookup) */
    private static String localConfig(String file) {
        URI uri = Sources.asUri(file);
        if (uri != null && !uri.getScheme().equalsIgnoreCase("file")) {
            return null;
        }
        Path parent = (uri == null ? Path.of(file) : Path.of(uri)).toAbsolutePath().getParent();
        Path config = parent == null ? null : parent.resolve("config.json");
        return config != null && Files.isRegularFile(config) ? config.toString() : null;
    }

    private static boolean isIndex(String location) {
        URI uri = Sources.asUri(location);
        String path = uri == null ? location : uri.getPath() == null ? "" : uri.getPath();
        return path.endsWith(INDEX_SUFFIX);
    }

    /**
     * The location of a file beside another. Shard names were checked by the index parser to be plain file names;
     * they are percent-encoded here so that {@code ?}, {@code #}, {@code :} or {@code @} stay part of the name. An
     * {@code hf://} index read without a revision in its location gets its shards pinned to the commit it was read
     * at ({@code hf://NS/REPO@COMMIT/...}), so a branch that moves meanwhile cannot mix two commits.
     */
    static String sibling(String location, String fileName, String revision) {
        URI uri = Sources.asUri(location);
        if (uri == null) {
            Path parent = Path.of(location).getParent();
            return parent == null ? fileName : parent.resolve(fileName).toString();
        }
        URI resolved = uri.resolve(URLEncoding.segment(fileName));
        if (revision != null && uri.getScheme().toLowerCase(Locale.ROOT).equals("hf")) {
            return pinHub(resolved, revision);
        }
        return resolved.toString();
    }

    /** Adds {@code @REVISION} after {@code [TYPE/]NS/REPO} when the Hub location names no revision. */
    private static String pinHub(URI uri, String revision) {
        String body = uri.getRawAuthority() + uri.getRawPath();
        String[] parts = body.split("/", -1);
        int repoAt = List.of("models", "datasets", "spaces").contains(parts[0]) ? 2 : 1;
        if (parts.length <= repoAt + 1 || parts[repoAt].contains("@")) {
            return uri.toString();
        }
        String encoded = URLEncoding.segment(revision);
        parts[repoAt] = parts[repoAt] + "@" + encoded;
        return "hf://" + String.join("/", parts);
    }

    /** @return the location as given */
    public String name() {
        return name;
    }

    /** @return the folder inside a repository, {@code ""} for its root or for a file or index */
    public String folder() {
        return folder;
    }

    /** @return the single file or the index */
    public String file() {
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
    public List<String> shards() {
        return shards;
    }

    /** @return the {@code config.json} beside the checkpoint: named by a repository listing, or beside a local file */
    public Optional<String> config() {
        return Optional.ofNullable(config);
    }

    /** @return {@code repository} and {@code revision} (the commit), where known */
    public Map<String, String> attributes() {
        return attributes;
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
