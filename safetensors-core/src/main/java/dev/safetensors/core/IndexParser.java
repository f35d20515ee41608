package dev.safetensors.core;

import dev.safetensors.InvalidHeaderException;
import dev.safetensors.CheckpointLimits;
import dev.safetensors.Location;
import dev.safetensors.spi.SourceNames;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamFactory;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.JacksonIOException;
import tools.jackson.core.json.JsonFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import dev.safetensors.core.internal.header.StrictUtf8;

/**
 * The one reader of {@code *.safetensors.index.json}, for local files, URLs and Hub repositories alike: a streaming
 * pass over the bytes ({@link IndexInput} bounds them and checks strict UTF-8 as they arrive), so an index as large as
 * {@link CheckpointLimits#maxIndexBytes()} is never held whole. Each distinct shard name is kept once (a checkpoint of 200,000 tensors in 100 shards holds 100
 * shard strings, not 200,000); tensor names are kept, because they are what the index maps.
 *
 * <p>Why Jackson's streaming parser rather than the header's tokenizer: the header tokenizer works on a byte array
 * in memory, which is right for a header of at most 100 MB read in one piece, but an index is read as a stream.
 * Jackson is configured strict (its defaults refuse comments, single quotes, trailing commas, NaN and leading
 * zeros), with nesting bounded; duplicate names in the root, {@code metadata} and {@code weight_map} objects, and
 * lone surrogates from {@code \}u escapes (also in values that are skipped), are refused here. Duplicates are found
 * with the maps being built rather than Jackson's duplicate detection, which would hold every tensor name twice.
 *
 * <p>Not thread-safe; one instance per index.
 */
final class IndexParser {
    private static final int MAX_DEPTH = 64;
    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(StreamReadFeature.AUTO_CLOSE_SOURCE)
            // 200,000 distinct tensor names would fill the name table for nothing
            .disable(TokenStreamFactory.Feature.CANONICALIZE_PROPERTY_NAMES)
            .disable(TokenStreamFactory.Feature.INTERN_PROPERTY_NAMES)
            // the document length is bounded by IndexInput under the caller's CheckpointLimits; strings cannot be longer
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH)
                    .maxDocumentLength(Integer.MAX_VALUE).maxStringLength(Integer.MAX_VALUE)
                    .maxNameLength(Integer.MAX_VALUE).build())
            .build();

    private final String source;
    private final JsonParser json;
    private final int maxShards;

    private IndexParser(String source, JsonParser json, int maxShards) {
        this.source = source;
        this.json = json;
        this.maxShards = maxShards;
    }

    /**
     * @param source a name for messages
     * @param in     the index bytes; not closed here
     * @param limits the bounds on the index's size and shard count
     * @return the parsed index
     * @throws InvalidHeaderException with {@code INVALID_INDEX} if the bytes are not a valid index
     * @throws IOException            if reading {@code in} fails
     */
    static ShardIndex parse(String source, InputStream in, CheckpointLimits limits) throws IOException {
        IndexInput checked = new IndexInput(source, in, limits.maxIndexBytes());
        // JSON is UTF-8 (RFC 8259): the parser is given characters, never bytes, so its encoding detection cannot
        // take an index starting "{\0\0\0" for UTF-32; IndexInput has already refused anything but strict UTF-8
        try (JsonParser p = JSON.createParser(ObjectReadContext.empty(), StrictUtf8.reader(checked))) {
            return new IndexParser(source, p, limits.maxShardsPerIndex()).read();
        } catch (JacksonIOException e) {
            if (e.getCause() instanceof CharacterCodingException) {
                throw ShardIndex.invalid(source, "the index is not valid UTF-8", -1);
            }
            throw e.getCause();
        } catch (JacksonException e) {
            TokenStreamLocation at = e.getLocation();
            throw ShardIndex.invalid(source, "not a valid index: " + SourceNames.clip(e.getOriginalMessage()),
                    at == null ? -1 : at.getCharOffset());
        }
    }

    private ShardIndex read() throws IOException {
        if (json.nextToken() != JsonToken.START_OBJECT) {
            throw invalid("the index is not a JSON object");
        }
        Map<String, String> weightMap = null;
        List<String> shards = null;
        long totalSize = -1;
        Set<String> keys = new HashSet<>();
        while (json.nextToken() == JsonToken.PROPERTY_NAME) {
            String key = checked(json.currentName());
            if (!keys.add(key)) {
                throw invalid("\"" + SourceNames.clip(key) + "\" appears twice");
            }
            if (key.equals("weight_map")) {
                shards = new ArrayList<>();
                weightMap = readWeightMap(shards);
            } else if (key.equals("metadata")) {
                totalSize = readMetadata();
            } else {
                skipValue();
            }
        }
        if (json.nextToken() != null) {
            throw invalid("data after the index object");
        }
        if (weightMap == null) {
            throw invalid("the index has no weight_map");
        }
        return new ShardIndex(source, weightMap, shards, totalSize);
    }

    private Map<String, String> readWeightMap(List<String> shards) throws IOException {
        if (json.nextToken() != JsonToken.START_OBJECT) {
            throw invalid("weight_map is not an object");
        }
        Map<String, String> map = new LinkedHashMap<>();
        Map<String, String> distinct = new HashMap<>();
        while (json.nextToken() == JsonToken.PROPERTY_NAME) {
            String tensor = checked(json.currentName());
            if (map.containsKey(tensor)) {
                throw invalid("tensor \"" + SourceNames.clip(tensor) + "\" is mapped twice");
            }
            if (json.nextToken() != JsonToken.VALUE_STRING) {
                throw invalid("the shard of tensor \"" + SourceNames.clip(tensor) + "\" is not a string");
            }
            String shard = distinct.get(json.getString());
            if (shard == null) {
                shard = checked(json.getString());
                checkShardName(shard);
                if (shards.size() == maxShards) {
                    throw invalid("the index names more than " + maxShards + " shards, the limit");
                }
                distinct.put(shard, shard);
                shards.add(shard);
            }
            map.put(tensor, shard);
        }
        return map;
    }

    private long readMetadata() throws IOException {
        if (json.nextToken() != JsonToken.START_OBJECT) {
            throw invalid("metadata is not an object");
        }
        long totalSize = -1;
        Set<String> keys = new HashSet<>();
        while (json.nextToken() == JsonToken.PROPERTY_NAME) {
            String key = checked(json.currentName());
            if (!keys.add(key)) {
                throw invalid("metadata key \"" + SourceNames.clip(key) + "\" appears twice");
            }
            if (key.equals("total_size")) {
                if (json.nextToken() != JsonToken.VALUE_NUMBER_INT || json.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                        || json.getLongValue() < 0) {
                    throw invalid("metadata.total_size is not a non-negative integer");
                }
                totalSize = json.getLongValue();
            } else {
                skipValue();
            }
        }
        return totalSize;
    }

    /** Skips one value token by token, so its strings are checked for lone surrogates too. */
    private void skipValue() throws IOException {
        int depth = 0;
        do {
            JsonToken t = json.nextToken();
            if (t == null) {
                throw invalid("the index ends inside a value");
            }
            if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                depth++;
            } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                depth--;
            } else if (t == JsonToken.PROPERTY_NAME) {
                checked(json.currentName());
            } else if (t == JsonToken.VALUE_STRING) {
                checked(json.getString());
            }
        } while (depth > 0);
    }

    private String checked(String s) throws InvalidHeaderException {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw invalid("a \\u escape leaves a lone surrogate");
            }
        }
        return s;
    }

    private void checkShardName(String shard) throws InvalidHeaderException {
        boolean control = shard.chars().anyMatch(c -> c < 0x20 || c == 0x7f);
        if (shard.isEmpty() || shard.equals(".") || shard.equals("..") || shard.indexOf('/') >= 0
                || shard.indexOf('\\') >= 0 || shard.indexOf(':') >= 0 || control) {
            throw invalid("shard \"" + SourceNames.clip(shard) + "\" is not a plain file name beside the"
                    + " index (no paths, '..', URLs or control characters)");
        }
        // every shard is read as a safetensors file, its header checked before any of it is trusted or fetched: a
        // name of any other kind (a commit journal, a partial download, a script) is not a shard
        if (!shard.endsWith(Location.FILE_SUFFIX) || shard.length() == Location.FILE_SUFFIX.length()) {
            throw invalid("shard \"" + SourceNames.clip(shard) + "\" is not a " + Location.FILE_SUFFIX
                    + " file name; an index names safetensors shards only");
        }
    }

    private InvalidHeaderException invalid(String detail) {
        return ShardIndex.invalid(source, detail, json.currentTokenLocation().getCharOffset());
    }
}
