package dev.safetensors.core;

import dev.safetensors.Location;
import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.StorageException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import dev.safetensors.core.internal.write.StoreCommit;
import dev.safetensors.core.internal.write.TempFileJanitor;
import dev.safetensors.spi.ObjectWriterProvider;
import dev.safetensors.spi.UploadOptions;
import dev.safetensors.spi.WrittenObject;

/**
 * Writes a checkpoint as shards of at most a given size and an index, as huggingface_hub's
 * {@code save_torch_state_dict} does: {@code PREFIX-00001-of-00003.safetensors} ... and
 * {@code PREFIX.safetensors.index.json} with {@code metadata.total_size} (the sum of the tensors' bytes) and
 * {@code weight_map} (tensor name to shard file). When everything fits in one shard, the output is the single file
 * {@code PREFIX.safetensors} and no index, again as the hub does.
 *
 * <pre>{@code
 * List<Path> written = ShardedWriter.create(2_000_000_000L)
 *         .prefix("model")
 *         .metadata("format", "pt")
 *         .tensor("embed.weight", DType.BF16, new long[] {32000, 4096}, TensorSource.range(source, 4096, length))
 *         .writeTo(Path.of("out"));
 * }</pre>
 *
 * <h2>Sizes</h2>
 * A shard's size is the sum of its tensors' bytes (the hub's rule; headers are not counted). Tensors are taken in
 * the order they were added; a new shard starts when the next tensor would take the current one past the maximum. A
 * tensor larger than the maximum gets a shard of its own.
 *
 * <h2>Checks and atomicity</h2>
 * Every shard is built and validated as {@link SafetensorsWriter} validates a file (the metadata is written into
 * every shard, under the same rules), and the index is parsed back with {@link ShardIndex} and cross-checked against
 * the shards' headers, all before the first byte is written. Existing files of the same names, and files of an
 * earlier layout with the same prefix ({@code PREFIX.safetensors}, {@code PREFIX.safetensors.index.json},
 * {@code PREFIX-NNNNN-of-NNNNN.safetensors} that the new files do not replace) are refused, naming the file, unless
 * {@link #replaceExisting(boolean)}; with it, the earlier layout's files are deleted once the new files are in place.
 *
 * <p>Every file is written to a temporary file beside its target, one at a time (one descriptor and one 1 MiB buffer
 * whatever the number of shards), forced to the device as {@link #durability(Durability)} says, then the folder; the
 * {@link #check(StagedCheck) check} runs on the complete files; only then are they renamed into place, through a
 * {@link CommitJournal}: shards first, the index last, then the earlier layout's files deleted. A failure or a signal
 * before the journal is in place deletes the temporary files and leaves the folder as it was; after it, the renames
 * are finished by this write, by the JVM's shutdown, or (after SIGKILL or a crash) by the next write into the folder
 * or {@link CommitJournal#recover(Path)}. So the folder holds the old checkpoint or the new one whole; until then a
 * read of it is refused ({@link ErrorCode#INTERRUPTED_COMMIT}) rather than shown the mix.
 *
 * <p>Not thread-safe.
 */
public final class ShardedWriter {
    /** The file name suffix of every shard and of the single file. */
    static final String SUFFIX = ".safetensors";

    /** The longest prefix, in UTF-8 bytes. */
    public static final int MAX_PREFIX_BYTES = 200;

    private final long maxShardBytes;
    private final Limits limits;
    private final List<WriterEntry> entries = new ArrayList<>();
    private final Map<String, String> metadata = new LinkedHashMap<>();
    private Alignment alignment = Alignment.INSERTION_ORDER;
    private String prefix = "model";
    private boolean replace;
    private Durability durability = Durability.EACH_FILE;
    private StagedCheck check;
    private java.util.function.IntConsumer steps = step -> { };

    private ShardedWriter(long maxShardBytes, Limits limits) {
        if (maxShardBytes < 1) {
            throw new IllegalArgumentException("the maximum shard size must be at least 1 byte, was "
                    + maxShardBytes);
        }
        this.maxShardBytes = maxShardBytes;
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    /**
     * @param maxShardBytes the largest sum of tensor bytes in one shard (a larger tensor gets a shard of its own)
     * @return a writer whose shards pass the strict {@link Limits#STRICT} policy
     */
    public static ShardedWriter create(long maxShardBytes) {
        return create(maxShardBytes, Limits.STRICT);
    }

    /**
     * @param maxShardBytes the largest sum of tensor bytes in one shard (a larger tensor gets a shard of its own)
     * @param limits        the policy every shard must pass
     * @return a writer
     */
    public static ShardedWriter create(long maxShardBytes, Limits limits) {
        return new ShardedWriter(maxShardBytes, limits);
    }

    /**
     * @param prefix the start of every file name (default {@code model}): a plain file name, no path
     * @return this writer
     * @throws IllegalArgumentException if it is empty, longer than {@value #MAX_PREFIX_BYTES} bytes in UTF-8 (the
     *                                  longest name written, the index's temporary file, then stays within the 255
     *                                  bytes file systems allow), contains a path separator, a colon or a control
     *                                  character, or is {@code .} or {@code ..}
     */
    public ShardedWriter prefix(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        if (!isValidPrefix(prefix)) {
            throw new IllegalArgumentException("the prefix must be a plain file name of up to " + MAX_PREFIX_BYTES
                    + " bytes in UTF-8 (file names stop at 255), with no '/', '\\\\', ':' or control character");
        }
        this.prefix = prefix;
        return this;
    }

    /**
     * @param prefix a prefix
     * @return whether {@link #prefix(String)} takes it: the prefixes this writer's files (and journals) can have
     */
    static boolean isValidPrefix(String prefix) {
        boolean bad = prefix.isEmpty() || prefix.equals(".") || prefix.equals("..") || prefix.length() > MAX_PREFIX_BYTES
                || prefix.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_PREFIX_BYTES;
        for (int i = 0; i < prefix.length() && !bad; i++) {
            char c = prefix.charAt(i);
            bad = c < 0x20 || c == 0x7f || c == '/' || c == '\\' || c == ':' || Character.isSurrogate(c);
        }
        return !bad;
    }

    /**
     * @param alignment the layout of every shard (default {@link Alignment#INSERTION_ORDER}); tensors are assigned to
     *                  shards in the order they were added, then ordered within each shard
     * @return this writer
     */
    public ShardedWriter alignment(Alignment alignment) {
        this.alignment = Objects.requireNonNull(alignment, "alignment");
        return this;
    }

    /**
     * @param replace whether existing files of the same names may be replaced (default: refused)
     * @return this writer
     */
    public ShardedWriter replaceExisting(boolean replace) {
        this.replace = replace;
        return this;
    }

    /**
     * Adds a metadata entry written into every shard, or replaces the value of a key already added.
     *
     * @param key   the key
     * @param value the value
     * @return this writer
     */
    public ShardedWriter metadata(String key, String value) {
        metadata.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
        return this;
    }

    /**
     * @param entries metadata entries, added in their iteration order as {@link #metadata(String, String)} does
     * @return this writer
     */
    public ShardedWriter metadata(Map<String, String> entries) {
        entries.forEach(this::metadata);
        return this;
    }

    /**
     * @param name   the name
     * @param dtype  the element type
     * @param shape  the dimensions (copied)
     * @param source the tensor's little-endian bytes
     * @return this writer
     */
    public ShardedWriter tensor(String name, DType dtype, long[] shape, TensorSource source) {
        entries.add(WriterEntry.of(Objects.requireNonNull(name, "name"), Objects.requireNonNull(dtype, "dtype"),
                shape, Objects.requireNonNull(source, "source")));
        return this;
    }

    /**
     * @param name  the name
     * @param dtype the element type
     * @param shape the dimensions (copied)
     * @param bytes the tensor's little-endian bytes between position and limit; kept, not copied
     * @return this writer
     */
    public ShardedWriter tensor(String name, DType dtype, long[] shape, ByteBuffer bytes) {
        return tensor(name, dtype, shape, TensorSource.of(bytes));
    }

    /**
     * @param name  the name
     * @param dtype the element type
     * @param shape the dimensions (copied)
     * @param bytes the tensor's little-endian bytes; kept, not copied
     * @return this writer
     */
    public ShardedWriter tensor(String name, DType dtype, long[] shape, byte[] bytes) {
        return tensor(name, dtype, shape, TensorSource.of(bytes));
    }

    /**
     * Adds a tensor given as float32 values, written as {@code dtype}; see
     * {@link SafetensorsWriter#tensor(String, DType, long[], float[])}.
     *
     * @param name   the name
     * @param dtype  F32, F16 or BF16 (rounded to nearest, ties to even)
     * @param shape  the dimensions (copied)
     * @param values the elements in row-major order; kept, not copied
     * @return this writer
     * @throws IllegalArgumentException if {@code dtype} is not F32, F16 or BF16
     */
    public ShardedWriter tensor(String name, DType dtype, long[] shape, float[] values) {
        entries.add(WriterEntry.ofFloats(Objects.requireNonNull(name, "name"), Objects.requireNonNull(dtype, "dtype"),
                shape, Objects.requireNonNull(values, "values")));
        return this;
    }

    /**
     * Adds an F32 tensor, every bit kept.
     *
     * @param name   the name
     * @param shape  the dimensions (copied)
     * @param values the elements in row-major order; kept, not copied
     * @return this writer
     */
    public ShardedWriter tensor(String name, long[] shape, float[] values) {
        return tensor(name, DType.F32, shape, values);
    }

    /**
     * @param durability when files are forced to the device (default {@link Durability#EACH_FILE})
     * @return this writer
     */
    public ShardedWriter durability(Durability durability) {
        this.durability = Objects.requireNonNull(durability, "durability");
        return this;
    }

    /**
     * Sets a check run on every shard once all files are written and forced, before the first rename: a check that
     * throws stops the write with the folder unchanged. A reshard reads every tensor back here.
     *
     * @param check the check, or {@code null} for none
     * @return this writer
     */
    public ShardedWriter check(StagedCheck check) {
        this.check = check;
        return this;
    }

    /** @param steps told each step of the commit reached (see {@link CommitJournal}); for tests that stop there */
    ShardedWriter onCommitStep(java.util.function.IntConsumer steps) {
        this.steps = Objects.requireNonNull(steps, "steps");
        return this;
    }

    /**
     * @return the file names this writer would write, shards first and the index (if any) last; writes nothing
     */
    public List<String> fileNames() {
        return layout(prefix, ShardPlan.split(entries, maxShardBytes).size());
    }

    /**
     * @param prefix a prefix
     * @param shards the number of shards, at least 1
     * @return the names of a checkpoint of that many shards, shards first and the index (if any) last: what
     *         {@link #fileNames()} gives
     */
    static List<String> layout(String prefix, int shards) {
        List<String> names = new ArrayList<>();
        if (shards == 1) {
            names.add(prefix + SUFFIX);
            return names;
        }
        for (int i = 1; i <= shards; i++) {
            names.add(shardName(prefix, i, shards));
        }
        names.add(prefix + Location.INDEX_SUFFIX);
        return names;
    }

    /**
     * @param prefix a prefix
     * @param name   a file name
     * @return whether {@code name} is one of the names a checkpoint with this prefix has in some layout (the single
     *         file, the index, or a shard {@code PREFIX-NNNNN-of-NNNNN.safetensors}): the files a write with this
     *         prefix replaces or deletes, and no others
     */
    static boolean isCheckpointName(String prefix, String name) {
        if (name.equals(prefix + SUFFIX) || name.equals(prefix + Location.INDEX_SUFFIX)) {
            return true;
        }
        String shard = prefix + "-00000-of-00000" + SUFFIX;
        if (name.length() != shard.length() || !name.startsWith(prefix + "-") || !name.endsWith(SUFFIX)) {
            return false;
        }
        for (int i = prefix.length(); i < shard.length() - SUFFIX.length(); i++) {
            char want = shard.charAt(i);
            char c = name.charAt(i);
            if (want == '0' ? c < '0' || c > '9' : c != want) {
                return false;
            }
        }
        return true;
    }

    /**
     * Writes the shards and the index into {@code dir}, all or nothing (see the class comment). A missing folder is
     * created (and removed again if the write fails); a commit journal left in it by a killed write is rolled forward
     * first ({@link CommitJournal#recover(Path)}), once it is authenticated as a writer's, and a journal that is not
     * refuses the write with nothing changed.
     *
     * @param dir the folder to write into
     * @return the files written, shards in order and the index last (no index for a single file)
     * @throws IOException a {@link dev.safetensors.SafetensorsException} if a shard or the index would break a rule,
     *                     {@link ErrorCode#ALREADY_EXISTS} for an existing file or an earlier layout not to be
     *                     replaced (named); {@link ErrorCode#WRITE_FAILED} for a commit journal in the folder that no
     *                     writer made (named; nothing changed), a folder
     *                     that cannot be created or written, a full disk, or a {@link #check(StagedCheck) check} that
     *                     failed; or a failure of a source, with the source's code and name
     */
    public List<Path> writeTo(Path dir) throws IOException {
        Encoding plan = encode(dir.toString(), name -> dir.resolve(name).toString());
        List<String> names = plan.names();
        List<SafetensorsWriter.Encoded> encoded = plan.shards();
        byte[] index = plan.index();
        List<Path> created = OutputFolder.create(dir);
        boolean committed = false;
        List<Path> staged = new ArrayList<>();
        try {
            CommitJournal.recover(dir);
            List<String> stale = earlierLayout(dir, names);
            boolean sync = durability != Durability.NONE;
            ByteBuffer block = BlockCopy.newBlock();
            // one file open at a time: written, forced (EACH_FILE), closed, then the next
            for (int i = 0; i < encoded.size(); i++) {
                SafetensorsWriter.Encoded shard = encoded.get(i);
                staged.add(stage(dir, names.get(i), f -> shard.writeTo(f, block), staged));
            }
            if (index != null) {
                byte[] json = index;
                staged.add(stage(dir, names.get(names.size() - 1),
                        f -> new BlockCopy(f.target().toString(), f.channel(), block).write(ByteBuffer.wrap(json)),
                        staged));
            }
            if (durability == Durability.AT_END) {
                for (Path p : staged) {
                    force(p);
                }
            }
            if (sync) {
                CommitJournal.syncFolder(dir);
            }
            if (check != null) {
                for (int i = 0; i < encoded.size(); i++) {
                    check.check(dir.resolve(names.get(i)), staged.get(i));
                }
            }
            List<CommitJournal.Rename> renames = new ArrayList<>();
            for (int i = 0; i < names.size(); i++) {
                renames.add(new CommitJournal.Rename(staged.get(i).getFileName().toString(), names.get(i)));
            }
            CommitJournal.commit(dir, prefix, renames, stale, sync, steps,
                    () -> TempFileJanitor.JVM.releaseAll(staged));
            committed = true;
            List<Path> written = new ArrayList<>();
            for (String name : names) {
                written.add(dir.resolve(name));
            }
            return List.copyOf(written);
        } finally {
            if (!committed) {
                discard(staged, created);
            }
        }
    }

    /**
     * Writes the shards and the index under a prefix of any store: a local folder as {@link #writeTo(Path)} does,
     * any other store through its {@link ObjectWriterProvider} ({@link SourceRegistry#writer}), which has no rename,
     * so the order of the uploads carries the guarantee instead: every shard uploaded, committed and its store
     * checksum verified first, the index (or the single file) last with a conditional create, the earlier layout's
     * objects deleted after it; with {@link #replaceExisting(boolean) replacing}, an existing index is deleted before
     * a shard of the same name is overwritten. So a reader of the prefix sees the old checkpoint whole, no index, or
     * the new one whole; a rerun after a kill (replacing) finishes the job, and uploads the killed run staged are
     * aborted. One writer per checkpoint: see docs/architecture.md, "Commits without rename". The
     * {@link #check(StagedCheck) check} runs on local writes only: an upload is verified by the store's checksum
     * of the bytes it holds, not by a read back.
     *
     * @param folder   the output folder or prefix; a trailing {@code /} is implied
     * @param registry the registry whose writer and listing serve the store
     * @param uploads  part size and parallelism of each upload (its overwrite flag is decided per object)
     * @return the objects written, shards in order and the index last (no index for a single file)
     * @throws IOException as {@link #writeTo(Path)}; {@link ErrorCode#UNSUPPORTED_SCHEME} for a store no installed
     *                     writer serves; the store's failures, coded
     */
    public List<Location> writeTo(Location folder, SourceRegistry registry, UploadOptions uploads)
            throws IOException {
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(uploads, "uploads");
        if (folder.isLocal()) {
            List<Location> written = new ArrayList<>();
            for (Path p : writeTo(folder.path())) {
                written.add(Location.of(p));
            }
            return List.copyOf(written);
        }
        Location prefix = folder.isFolder() ? folder : Location.parse(folder.text() + "/");
        Encoding plan = encode(prefix.display(), name -> StoreCommit.resolve(prefix, name).display());
        List<String> names = plan.names();
        List<StoreCommit.Item> data = new ArrayList<>();
        List<StoreCommit.Item> entryPoints = new ArrayList<>();
        ByteBuffer block = BlockCopy.newBlock();
        for (int i = 0; i < plan.shards().size(); i++) {
            SafetensorsWriter.Encoded shard = plan.shards().get(i);
            StoreCommit.Item item = new StoreCommit.Item(names.get(i), shard.header().fileSize(),
                    upload -> shard.writeTo(new BlockCopy(shard.target(), upload, block)));
            (plan.index() == null ? entryPoints : data).add(item);
        }
        if (plan.index() != null) {
            byte[] json = plan.index();
            String indexName = names.get(names.size() - 1);
            entryPoints.add(new StoreCommit.Item(indexName, json.length,
                    upload -> new BlockCopy(StoreCommit.resolve(prefix, indexName).display(), upload, block)
                            .write(ByteBuffer.wrap(json))));
        }
        StoreCommit commit = new StoreCommit(registry.writer(prefix), registry::list, prefix, uploads, replace,
                name -> isCheckpointName(this.prefix, name), steps);
        List<Location> written = new ArrayList<>();
        for (WrittenObject w : commit.publish(data, entryPoints).written()) {
            written.add(w.location());
        }
        return List.copyOf(written);
    }

    /** The shards encoded and validated, and the index cross-checked against them: nothing written yet. */
    private record Encoding(List<String> names, List<SafetensorsWriter.Encoded> shards, byte[] index) {
    }

    /**
     * @param folder the output's name for messages
     * @param where  a file's name for messages, from its name in the layout
     */
    private Encoding encode(String folder, java.util.function.UnaryOperator<String> where) throws IOException {
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (WriterEntry e : entries) {
            if (!seen.add(e.name())) {
                throw new dev.safetensors.InvalidHeaderException(ErrorCode.DUPLICATE_KEY, folder,
                        "two tensors have this name", e.name(), -1);
            }
        }
        List<List<WriterEntry>> plan = ShardPlan.split(entries, maxShardBytes);
        List<String> names = fileNames();
        List<SafetensorsWriter.Encoded> encoded = new ArrayList<>();
        Map<String, String> weightMap = new LinkedHashMap<>();
        Map<String, dev.safetensors.SafetensorsHeader> headers = new LinkedHashMap<>();
        long total = 0;
        for (int i = 0; i < plan.size(); i++) {
            SafetensorsWriter shard = SafetensorsWriter.create(limits).alignment(alignment).metadata(metadata);
            shard.addAll(plan.get(i));
            SafetensorsWriter.Encoded e = shard.encode(where.apply(names.get(i)));
            encoded.add(e);
            headers.put(names.get(i), e.header());
            for (WriterEntry t : plan.get(i)) {
                weightMap.put(t.name(), names.get(i));
                total += t.byteLength();
            }
        }
        byte[] index = null;
        if (plan.size() > 1) {
            index = ShardIndex.encode(total, weightMap);
            ShardIndex.parse(where.apply(names.get(names.size() - 1)), index).verifyAgainst(headers);
        }
        return new Encoding(names, encoded, index);
    }

    /** Writes one file into a temporary file beside its target, and closes it. */
    private Path stage(Path dir, String name, Filler filler, List<Path> staged) throws IOException {
        AtomicFile f;
        try {
            f = AtomicFile.beside(dir.resolve(name), replace, TempFileJanitor.JVM);
        } catch (dev.safetensors.SafetensorsException e) {
            throw e;
        } catch (IOException e) {
            throw BlockCopy.writeFailed(dir.resolve(name).toString(), e);
        }
        try (f) {
            filler.fill(f);
            try {
                return f.stage(durability == Durability.EACH_FILE);
            } catch (IOException e) {
                throw BlockCopy.writeFailed(f.target().toString(), e);
            }
        }
    }

    /** Fills a temporary file. */
    private interface Filler {
        void fill(AtomicFile file) throws IOException;
    }

    private static void force(Path file) throws IOException {
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
                java.nio.file.StandardOpenOption.WRITE)) {
            ch.force(true);
        } catch (IOException e) {
            throw BlockCopy.writeFailed(file.toString(), e);
        }
    }

    /** Deletes the temporary files of a write that did not reach its commit point, and the folders it created. */
    private static void discard(List<Path> staged, List<Path> created) {
        for (Path p : staged) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                // the shutdown cleanup tries again
                continue;
            }
            TempFileJanitor.JVM.release(p);
        }
        OutputFolder.removeIfEmpty(created);
    }

    /**
     * @return the files in {@code dir} with this writer's prefix that the new files do not replace: an earlier
     *         single file, index or shards of another count; deleted once the new files are in place
     * @throws StorageException naming the first file in the way when replacing is not allowed
     */
    private List<String> earlierLayout(Path dir, List<String> names) throws IOException {
        List<String> stale = new ArrayList<>();
        List<String> present = new ArrayList<>();
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            files.forEach(p -> present.add(p.getFileName().toString()));
        }
        java.util.Collections.sort(present);
        for (String name : names) {
            if (!replace && present.contains(name)) {
                throw new StorageException(ErrorCode.ALREADY_EXISTS, dir.resolve(name).toString(), "exists: refusing"
                        + " to replace it");
            }
        }
        for (String name : present) {
            if (!names.contains(name) && isCheckpointName(prefix, name)) {
                if (!replace) {
                    throw new StorageException(ErrorCode.ALREADY_EXISTS, dir.resolve(name).toString(), "belongs to an"
                            + " earlier layout with the prefix '" + prefix + "': refusing to leave it beside the new"
                            + " files, where a loader may read it instead; allow replacing to delete it");
                }
                stale.add(name);
            }
        }
        return stale;
    }

    /**
     * The one place a shard's name is formatted, as huggingface_hub names shards.
     *
     * @param prefix the writer's prefix
     * @param shard  the shard's number, from 1
     * @param shards the number of shards
     * @return {@code PREFIX-NNNNN-of-NNNNN.safetensors}
     */
    public static String shardName(String prefix, int shard, int shards) {
        return String.format(Locale.ROOT, "%s-%05d-of-%05d%s", prefix, shard, shards, SUFFIX);
    }
}
