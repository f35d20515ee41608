package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.CheckpointLimits;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;

import tools.jackson.core.JsonEncoding;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import dev.safetensors.core.internal.index.IndexAgreement;

import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A sharded checkpoint's index ({@code model.safetensors.index.json}): which shard file holds each tensor, and the
 * declared {@code metadata.total_size}.
 *
 * <p>Parsing streams (the index is never held whole; see {@link #read}) and is strict and bounded: at most
 * {@link CheckpointLimits#maxIndexBytes()} bytes and {@link CheckpointLimits#maxShardsPerIndex()} distinct shards, the limits for every
 * index wherever it is read from, strict UTF-8 (RFC 8259: no other encoding is detected) and JSON, no duplicate
 * names in the root, {@code metadata} or {@code weight_map} objects, {@code total_size} a plain non-negative integer,
 * every shard a string. Shard names must be plain file names that live beside the index: no {@code /} or {@code \},
 * no {@code .} or {@code ..}, no {@code :} (URLs, drive letters), no control characters, and ending in
 * {@code .safetensors} after a non-empty stem; so a hostile index cannot make a tool read, download or act on other
 * files (a commit journal, a partial download) as if they were shards. Other root keys and other {@code metadata} entries are allowed and ignored. Every
 * failure is an {@link InvalidHeaderException} with {@link ErrorCode#INVALID_INDEX}.
 *
 * <p>Immutable and thread-safe.
 */
public final class ShardIndex {
    /** Bytes asked by the first read of an index: most indexes fit, and the answer tells the size of the rest. */
    static final int FIRST_READ = 256 * 1024;

    private final String source;
    private final Map<String, String> weightMap;
    private final List<String> shards;
    private final long totalSize;

    ShardIndex(String source, Map<String, String> weightMap, List<String> shards, long totalSize) {
        this.source = source;
        this.weightMap = Collections.unmodifiableMap(weightMap);
        this.shards = List.copyOf(shards);
        this.totalSize = totalSize;
    }

    /**
     * Reads an index under {@link CheckpointLimits#DEFAULT}, as {@link #read(RandomAccessSource, CheckpointLimits)}.
     *
     * @param source the index file
     * @return the parsed index
     * @throws InvalidHeaderException with {@code INVALID_INDEX} if it is too large or malformed
     * @throws IOException            if it cannot be read
     */
    public static ShardIndex read(RandomAccessSource source) throws IOException {
        return read(source, CheckpointLimits.DEFAULT);
    }

    /**
     * Reads an index from a source as a stream, refusing one larger than {@link CheckpointLimits#maxIndexBytes()} before
     * reading past its first {@value #FIRST_READ} bytes. Most indexes fit that first read, so a remote index costs
     * one request (the size comes with the answer); a larger one costs exactly one more, a ranged stream of the rest,
     * which is parsed as it arrives and never held whole.
     *
     * @param source the index file
     * @param limits the bounds on its size and shard count
     * @return the parsed index
     * @throws InvalidHeaderException with {@code INVALID_INDEX} if it is too large, names too many shards, or is
     *                                malformed
     * @throws IOException            if it cannot be read
     */
    public static ShardIndex read(RandomAccessSource source, CheckpointLimits limits) throws IOException {
        ByteBuffer first = ByteBuffer.allocate(FIRST_READ);
        int n = Math.max(0, source.read(0, first));
        InputStream head = new ByteArrayInputStream(first.array(), 0, n);
        if (n < FIRST_READ) {
            return IndexParser.parse(source.name(), head, limits);
        }
        long size = source.size();
        if (size > limits.maxIndexBytes()) {
            throw new InvalidHeaderException(ErrorCode.INVALID_INDEX, source.name(), "the index has " + size
                    + " bytes, more than the limit of " + limits.maxIndexBytes());
        }
        try (ReadableByteChannel rest = source.openRange(n, size - n)) {
            return IndexParser.parse(source.name(), new SequenceInputStream(head, Channels.newInputStream(rest)),
                    limits);
        }
    }

    /**
     * Parses index bytes under {@link CheckpointLimits#DEFAULT}.
     *
     * @param source a name for messages
     * @param json   the index file's bytes
     * @return the parsed index
     * @throws InvalidHeaderException with {@code INVALID_INDEX} if it is too large or malformed
     */
    public static ShardIndex parse(String source, byte[] json) throws InvalidHeaderException {
        return parse(source, json, CheckpointLimits.DEFAULT);
    }

    /**
     * Parses index bytes.
     *
     * @param source a name for messages
     * @param json   the index file's bytes
     * @param limits the bounds on its size and shard count
     * @return the parsed index
     * @throws InvalidHeaderException with {@code INVALID_INDEX} if it is too large, names too many shards, or is
     *                                malformed
     */
    public static ShardIndex parse(String source, byte[] json, CheckpointLimits limits) throws InvalidHeaderException {
        if (json.length > limits.maxIndexBytes()) {
            throw invalid(source, "the index has " + json.length + " bytes, more than the limit of "
                    + limits.maxIndexBytes(), -1);
        }
        try {
            return IndexParser.parse(source, new ByteArrayInputStream(json), limits);
        } catch (InvalidHeaderException e) {
            throw e;
        } catch (IOException e) {
            // a byte array does not fail to read; whatever else reached here is a malformed index
            throw invalid(source, "not a valid index: " + e, -1);
        }
    }

    /**
     * The one index writer: the {@code *.safetensors.index.json} every writer publishes (the sharded writer,
     * {@code reshard}, Spark), in the form huggingface_hub writes, compact and newline-terminated.
     *
     * @param totalSize the tensor bytes of all shards ({@code metadata.total_size})
     * @param weightMap each tensor's shard file name, in the order to write them
     * @return the index file's bytes, UTF-8
     */
    public static byte[] encode(long totalSize, Map<String, String> weightMap) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + 80 * weightMap.size());
        try (JsonGenerator g = HeaderEncoder.JSON.createGenerator(ObjectWriteContext.empty(), out, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeName("metadata");
            g.writeStartObject();
            g.writeNumberProperty("total_size", totalSize);
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
        for (String shard : shardHeaders.keySet()) {
            if (!shards.contains(shard)) {
                throw invalid(source, "shard \"" + shard + "\" is not named by the index", -1);
            }
        }
        IndexAgreement agreement = agreement();
        for (String shard : shards) {
            agreement.accept(shard, shardHeaders.get(shard));
        }
        return agreement.finish();
    }

    /** @return the rules of {@link #verifyAgainst}, to be judged one shard at a time in {@link #shards()} order */
    IndexAgreement agreement() {
        return new IndexAgreement(source, shards, weightMap, totalSize);
    }

    static InvalidHeaderException invalid(String source, String detail, long at) {
        return new InvalidHeaderException(ErrorCode.INVALID_INDEX, source, detail, null, at);
    }
}
