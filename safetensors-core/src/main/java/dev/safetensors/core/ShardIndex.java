package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;
import dev.safetensors.spi.SourceNames;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A sharded checkpoint's index ({@code model.safetensors.index.json}): which shard file holds each tensor, and the
 * declared {@code metadata.total_size}.
 *
 * <p>Parsing is strict and bounded: at most {@link #MAX_INDEX_BYTES} bytes, strict UTF-8 and JSON, no duplicate
 * names in the root, {@code metadata} or {@code weight_map} objects, {@code total_size} a plain non-negative integer,
 * every shard a string. Shard names must be plain file names that live beside the index: no {@code /} or {@code \},
 * no {@code .} or {@code ..}, no {@code :} (URLs, drive letters), no control characters; so a hostile index cannot
 * make a tool read other files. Other root keys and other {@code metadata} entries are allowed and ignored. Every
 * failure is an {@link InvalidHeaderException} with {@link ErrorCode#INVALID_INDEX}.
 *
 * <p>Immutable and thread-safe.
 */
public final class ShardIndex {
    /** The largest index accepted: 64 MiB, some hundred times the index of a 50,000-tensor checkpoint. */
    public static final int MAX_INDEX_BYTES = 64 * 1024 * 1024;
    /** Bytes asked by the first read of an index: most indexes fit, and the answer tells the size of the rest. */
    static final int FIRST_READ = 256 * 1024;
    private static final int MAX_DEPTH = 64;

    private final String source;
    private final Map<String, String> weightMap;
    private final List<String> shards;
    private final long totalSize;

    private ShardIndex(String source, Map<String, String> weightMap, long totalSize) {
        this.source = source;
        this.weightMap = Collections.unmodifiableMap(weightMap);
        this.shards = List.copyOf(new LinkedHashSet<>(weightMap.values()));
        this.totalSize = totalSize;
    }

    /**
     * Reads a whole index from a source, refusing one larger than {@link #MAX_INDEX_BYTES} before reading past its
     * first {@value #FIRST_READ} bytes. Most indexes fit that first read, so a remote index costs one request (the
     * size comes with the answer); a larger one costs exactly one more, for the rest.
     *
     * @param source the index file
     * @return the parsed index
     * @throws InvalidHeaderException with {@code INVALID_INDEX} if it is too large or malformed
     * @throws IOException            if it cannot be read
     */
    public static ShardIndex read(RandomAccessSource source) throws IOException {
        ByteBuffer first = ByteBuffer.allocate(FIRST_READ);
        int n = Math.max(0, source.read(0, first));
        if (n < FIRST_READ) {
            return parse(source.name(), Arrays.copyOf(first.array(), n));
        }
        long size = source.size();
        if (size > MAX_INDEX_BYTES) {
            throw new InvalidHeaderException(ErrorCode.INVALID_INDEX, source.name(), "the index has " + size
                    + " bytes, more than the limit of " + MAX_INDEX_BYTES);
        }
        ByteBuffer all = ByteBuffer.allocate((int) size);
        all.put(first.flip());
        source.readFully(n, all);
        return parse(source.name(), all.array());
    }

    /**
     * Parses index bytes.
     *
     * @param source a name for messages
     * @param json   the index file's bytes
     * @return the parsed index
     * @throws InvalidHeaderException with {@code INVALID_INDEX} if it is too large or malformed
     */
    public static ShardIndex parse(String source, byte[] json) throws InvalidHeaderException {
        if (json.length > MAX_INDEX_BYTES) {
            throw invalid(source, "the index has " + json.length + " bytes, more than the limit of "
                    + MAX_INDEX_BYTES, -1);
        }
        try {
            return new IndexReader(source, json).read();
        } catch (InvalidHeaderException e) {
            if (e.code() == ErrorCode.INVALID_INDEX) {
                throw e;
            }
            throw invalid(source, e.detail(), e.headerOffset().orElse(-1));
        }
    }

    /** @return the name of the index's source */
    public String source() {
        return source;
    }

    /** @return tensor name to shard file name, in file order */
    public Map<String, String> weightMap() {
        return weightMap;
    }

    /** @return the distinct shard file names, in order of first appearance */
    public List<String> shards() {
        return shards;
    }

    /** @return the declared {@code metadata.total_size}, if present */
    public OptionalLong totalSize() {
        return totalSize < 0 ? OptionalLong.empty() : OptionalLong.of(totalSize);
    }

    /**
     * Cross-checks the index against the validated headers of its shards: every shard it names is given, every
     * mapped tensor is in the shard it is mapped to, every tensor of a shard is mapped to that shard (so none is in
     * two shards or unmapped), and {@code metadata.total_size}, when present, equals the sum of the tensors' bytes.
     *
     * @param shardHeaders the header of each shard, by shard file name
     * @return the sum of the tensors' bytes over all shards
     * @throws InvalidHeaderException with {@code INVALID_INDEX} naming the first inconsistency found, or when that
     *                                sum does not fit in a signed 64-bit integer
     */
    public long verifyAgainst(Map<String, SafetensorsHeader> shardHeaders) throws InvalidHeaderException {
        for (String shard : shards) {
            if (!shardHeaders.containsKey(shard)) {
                throw invalid(source, "no header was given for shard \"" + shard + "\"", -1);
            }
        }
        Set<String> named = new HashSet<>(shards);
        for (String shard : shardHeaders.keySet()) {
            if (!named.contains(shard)) {
                throw invalid(source, "shard \"" + shard + "\" is not named by the index", -1);
            }
        }
        long total = 0;
        Map<String, String> seenIn = new HashMap<>();
        for (String shard : shards) {
            for (TensorInfo t : shardHeaders.get(shard).tensors()) {
                String other = seenIn.putIfAbsent(t.name(), shard);
                if (other != null) {
                    throw invalid(source, "tensor \"" + t.name() + "\" is in two shards: " + other + " and " + shard,
                            -1);
                }
                String mapped = weightMap.get(t.name());
                if (mapped == null) {
                    throw invalid(source, "tensor \"" + t.name() + "\" of shard " + shard + " is not in the index",
                            -1);
                }
                if (!mapped.equals(shard)) {
                    throw invalid(source, "tensor \"" + t.name() + "\" is in shard " + shard
                            + " but the index maps it to " + mapped, -1);
                }
                if (t.byteLength() > Long.MAX_VALUE - total) {
                    // a remote shard's size is the server's claim, so validated shards can still sum past 2^63
                    throw invalid(source, "the shards' tensors hold more than 2^63-1 bytes together", -1);
                }
                total += t.byteLength();
            }
        }
        for (Map.Entry<String, String> m : weightMap.entrySet()) {
            if (!seenIn.containsKey(m.getKey())) {
                throw invalid(source, "tensor \"" + m.getKey() + "\" is mapped to " + m.getValue()
                        + " but that shard does not hold it", -1);
            }
        }
        if (totalSize >= 0 && totalSize != total) {
            throw invalid(source, "metadata.total_size is " + totalSize + " but the shards' tensors hold " + total
                    + " bytes", -1);
        }
        return total;
    }

    static InvalidHeaderException invalid(String source, String detail, long at) {
        return new InvalidHeaderException(ErrorCode.INVALID_INDEX, source, detail, null, at);
    }

    /** One pass of the strict tokenizer over the index. */
    private static final class IndexReader {
        private final String source;
        private final byte[] bytes;
        private final JsonTokenizer json;

        IndexReader(String source, byte[] bytes) {
            this.source = source;
            this.bytes = bytes;
            this.json = new JsonTokenizer(source, bytes, 0, bytes.length, MAX_DEPTH);
        }

        ShardIndex read() throws InvalidHeaderException {
            Utf8Validator.Result utf8 = Utf8Validator.validate(bytes, 0, bytes.length);
            if (!utf8.valid()) {
                throw invalid(source, "the index is not valid UTF-8", utf8.errorAt());
            }
            if (json.next() != JsonToken.BEGIN_OBJECT) {
                throw invalid(source, "the index is not a JSON object", json.tokenOffset());
            }
            Map<String, String> weightMap = null;
            long totalSize = -1;
            Set<String> keys = new HashSet<>();
            while (json.next() == JsonToken.NAME) {
                long at = json.tokenOffset();
                String key = json.text();
                if (!keys.add(key)) {
                    throw invalid(source, "\"" + key + "\" appears twice", at);
                }
                switch (key) {
                    case "weight_map" -> weightMap = readWeightMap();
                    case "metadata" -> totalSize = readMetadata();
                    default -> skipValue();
                }
            }
            if (json.next() != JsonToken.END) {
                throw invalid(source, "data after the index object", json.tokenOffset());
            }
            for (int i = json.position(); i < bytes.length; i++) {
                byte c = bytes[i];
                if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                    throw invalid(source, "only whitespace may follow the index object", i);
                }
            }
            if (weightMap == null) {
                throw invalid(source, "the index has no weight_map", -1);
            }
            return new ShardIndex(source, weightMap, totalSize);
        }

        private Map<String, String> readWeightMap() throws InvalidHeaderException {
            if (json.next() != JsonToken.BEGIN_OBJECT) {
                throw invalid(source, "weight_map is not an object", json.tokenOffset());
            }
            Map<String, String> map = new LinkedHashMap<>();
            Set<String> checkedShards = new HashSet<>();
            while (json.next() == JsonToken.NAME) {
                long at = json.tokenOffset();
                String tensor = json.text();
                if (map.containsKey(tensor)) {
                    throw invalid(source, "tensor \"" + tensor + "\" is mapped twice", at);
                }
                if (json.next() != JsonToken.STRING) {
                    throw invalid(source, "the shard of tensor \"" + tensor + "\" is not a string", json.tokenOffset());
                }
                String shard = json.text();
                if (checkedShards.add(shard)) {
                    checkShardName(shard, json.tokenOffset());
                }
                map.put(tensor, shard);
            }
            return map;
        }

        private long readMetadata() throws InvalidHeaderException {
            if (json.next() != JsonToken.BEGIN_OBJECT) {
                throw invalid(source, "metadata is not an object", json.tokenOffset());
            }
            long totalSize = -1;
            Set<String> keys = new HashSet<>();
            while (json.next() == JsonToken.NAME) {
                long at = json.tokenOffset();
                String key = json.text();
                if (!keys.add(key)) {
                    throw invalid(source, "metadata key \"" + key + "\" appears twice", at);
                }
                if (key.equals("total_size")) {
                    if (json.next() != JsonToken.NUMBER || !json.numberIsPlainInteger() || json.integerValue() < 0) {
                        throw invalid(source, "metadata.total_size is not a non-negative integer", json.tokenOffset());
                    }
                    totalSize = json.integerValue();
                } else {
                    skipValue();
                }
            }
            return totalSize;
        }

        private void skipValue() throws InvalidHeaderException {
            json.next();
            json.skipValueRest();
        }

        private void checkShardName(String shard, long at) throws InvalidHeaderException {
            boolean control = shard.chars().anyMatch(c -> c < 0x20 || c == 0x7f);
            if (shard.isEmpty() || shard.equals(".") || shard.equals("..") || shard.indexOf('/') >= 0
                    || shard.indexOf('\\') >= 0 || shard.indexOf(':') >= 0 || control) {
                throw invalid(source, "shard \"" + SourceNames.clip(shard) + "\" is not a plain file name beside the"
                        + " index (no paths, '..', URLs or control characters)", at);
            }
        }
    }
}
