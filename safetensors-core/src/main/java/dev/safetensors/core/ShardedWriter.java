package dev.safetensors.core;

import dev.safetensors.Location;
import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.StorageException;
import tools.jackson.core.JsonEncoding;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonWriteFeature;

import java.io.ByteArrayOutputStream;
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
 * the shards' headers, all before the first byte is written. Existing output files are refused unless
 * {@link #replaceExisting(boolean)}. Every file is written to a temporary file first; only when all of them are
 * complete are they renamed into place, shards first and the index last. A failure while writing (a source that
 * delivers the wrong length, an interrupt, a full disk) deletes the temporary files and leaves the directory as it
 * was. The renames themselves are one per file: if one fails (another process created the file meanwhile, the
 * directory vanished), the files renamed before it stay, and the index, renamed last, is not written.
 *
 * <p>Not thread-safe.
 */
public final class ShardedWriter {
    /** The file name suffix of every shard and of the single file. */
    static final String SUFFIX = ".safetensors";
    /** The file name suffix of the index. */
    static final String INDEX_SUFFIX = Location.INDEX_SUFFIX;
    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(JsonWriteFeature.ESCAPE_FORWARD_SLASHES)
            .disable(JsonWriteFeature.ESCAPE_NON_ASCII)
            .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
            .build();

    private final long maxShardBytes;
    private final Limits limits;
    private final List<WriterEntry> entries = new ArrayList<>();
    private final Map<String, String> metadata = new LinkedHashMap<>();
    private Alignment alignment = Alignment.INSERTION_ORDER;
    private String prefix = "model";
    private boolean replace;

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
     * @return a writer whose shards pass the strict {@link Limits#DEFAULT} policy
     */
    public static ShardedWriter create(long maxShardBytes) {
        return create(maxShardBytes, Limits.DEFAULT);
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
     * @throws IllegalArgumentException if it is empty, contains a path separator, a colon or a control character,
     *                                  or is {@code .} or {@code ..}
     */
    public ShardedWriter prefix(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        boolean bad = prefix.isEmpty() || prefix.equals(".") || prefix.equals("..") || prefix.length() > 200;
        for (int i = 0; i < prefix.length() && !bad; i++) {
            char c = prefix.charAt(i);
            bad = c < 0x20 || c == 0x7f || c == '/' || c == '\\' || c == ':' || Character.isSurrogate(c);
        }
        if (bad) {
            throw new IllegalArgumentException("the prefix must be a plain file name of up to 200 characters, with"
                    + " no '/', '\\\\', ':' or control character");
        }
        this.prefix = prefix;
        return this;
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
     * @return the file names this writer would write, shards first and the index (if any) last; writes nothing
     */
    public List<String> fileNames() {
        int n = ShardPlan.split(entries, maxShardBytes).size();
        List<String> names = new ArrayList<>();
        if (n == 1) {
            names.add(prefix + SUFFIX);
            return names;
        }
        for (int i = 1; i <= n; i++) {
            names.add(shardName(i, n));
        }
        names.add(prefix + INDEX_SUFFIX);
        return names;
    }

    /**
     * Writes the shards and the index into {@code dir}, all or nothing (see the class comment).
     *
     * @param dir an existing directory
     * @return the files written, shards in order and the index last (no index for a single file)
     * @throws IOException a {@link dev.safetensors.SafetensorsException} if a shard or the index would break a rule,
     *                     {@link ErrorCode#WRITE_FAILED} for an existing file not to be replaced, or a failure of a
     *                     source or the file system
     */
    public List<Path> writeTo(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new StorageException(ErrorCode.NOT_A_FILE, dir.toString(), "is not a directory to write the"
                    + " shards into");
        }
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (WriterEntry e : entries) {
            if (!seen.add(e.name())) {
                throw new dev.safetensors.InvalidHeaderException(ErrorCode.DUPLICATE_KEY, dir.toString(),
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
            SafetensorsWriter.Encoded e = shard.encode(dir.resolve(names.get(i)).toString());
            encoded.add(e);
            headers.put(names.get(i), e.header());
            for (WriterEntry t : plan.get(i)) {
                weightMap.put(t.name(), names.get(i));
                total += t.byteLength();
            }
        }
        byte[] index = null;
        if (plan.size() > 1) {
            String indexName = dir.resolve(names.get(names.size() - 1)).toString();
            index = indexJson(total, weightMap);
            ShardIndex.parse(indexName, index).verifyAgainst(headers);
        }
        for (String name : names) {
            if (!replace && Files.exists(dir.resolve(name), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                throw new StorageException(ErrorCode.WRITE_FAILED, dir.resolve(name).toString(), "exists: refusing"
                        + " to replace it");
            }
        }
        List<AtomicFile> files = new ArrayList<>();
        try {
            for (int i = 0; i < encoded.size(); i++) {
                AtomicFile f = AtomicFile.create(dir.resolve(names.get(i)), replace, TempFileJanitor.JVM);
                files.add(f);
                encoded.get(i).writeTo(f);
            }
            if (index != null) {
                AtomicFile f = AtomicFile.create(dir.resolve(names.get(names.size() - 1)), replace,
                        TempFileJanitor.JVM);
                files.add(f);
                new BlockCopy(f.target().toString(), f.channel()).write(ByteBuffer.wrap(index));
            }
            List<Path> written = new ArrayList<>();
            for (AtomicFile f : files) {
                f.commit();
                written.add(dir.resolve(f.target().getFileName()));
            }
            return List.copyOf(written);
        } finally {
            for (AtomicFile f : files) {
                f.close();
            }
        }
    }

    private String shardName(int i, int n) {
        return String.format(Locale.ROOT, "%s-%05d-of-%05d%s", prefix, i, n, SUFFIX);
    }

    private static byte[] indexJson(long total, Map<String, String> weightMap) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + 80 * weightMap.size());
        try (JsonGenerator g = JSON.createGenerator(ObjectWriteContext.empty(), out, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeName("metadata");
            g.writeStartObject();
            g.writeNumberProperty("total_size", total);
            g.writeEndObject();
            g.writeName("weight_map");
            g.writeStartObject();
            for (Map.Entry<String, String> m : weightMap.entrySet()) {
                g.writeStringProperty(m.getKey(), m.getValue());
            }
            g.writeEndObject();
            g.writeEndObject();
        }
        out.write('\n');
        return out.toByteArray();
    }
}
