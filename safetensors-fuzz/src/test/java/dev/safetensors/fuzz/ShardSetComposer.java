package dev.safetensors.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import dev.safetensors.Limits;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.core.Safetensors;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Composes a sharded checkpoint from a fuzzer's choices: validated shard headers (built as header bytes for files
 * whose declared size may be far larger than memory, so byte counts reach the signed 64-bit edge), the index that
 * describes them, mostly truthful and sometimes perturbed, and the set of headers handed to the cross-check.
 */
final class ShardSetComposer {
    private static final String[] SHARDS = {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors",
        "extra.safetensors"};
    private static final String[] TENSORS = {"w", "b", "emb", "head", "w\u00e9"};
    /**
     * Tensor lengths near the largest a U8 tensor may have (its size in bits, 8 per byte, must fit in a signed
     * 64-bit integer): a handful of them exceed 2^63 - 1 bytes in total across shards, none does in one shard.
     */
    private static final long[] HUGE = {1L << 59, (1L << 60) - 1, Long.MAX_VALUE / 8, (Long.MAX_VALUE / 8) - 4096};

    /**
     * @param indexJson the index file
     * @param given     the headers handed to the cross-check, by shard name
     */
    record ShardSet(byte[] indexJson, Map<String, SafetensorsHeader> given) {
    }

    private final FuzzedDataProvider d;

    private ShardSetComposer(FuzzedDataProvider d) {
        this.d = d;
    }

    static ShardSet compose(FuzzedDataProvider d) throws IOException {
        return new ShardSetComposer(d).shardSet();
    }

    private ShardSet shardSet() throws IOException {
        int shardCount = d.consumeInt(1, SHARDS.length);
        Map<String, SafetensorsHeader> headers = new LinkedHashMap<>();
        Map<String, String> truth = new LinkedHashMap<>();
        for (int s = 0; s < shardCount; s++) {
            String name = SHARDS[s];
            SafetensorsHeader h = shard(name);
            headers.put(name, h);
            h.tensors().forEach(t -> truth.putIfAbsent(t.name(), name));
        }
        Map<String, String> weightMap = new LinkedHashMap<>(truth);
        switch (d.consumeInt(0, 7)) {
            case 1 -> weightMap.remove(d.pickValue(TENSORS));
            case 2 -> weightMap.put(d.pickValue(TENSORS), d.pickValue(SHARDS));
            case 3 -> weightMap.put("ghost", SHARDS[0]);
            default -> {
            }
        }
        Map<String, SafetensorsHeader> given = new LinkedHashMap<>(headers);
        switch (d.consumeInt(0, 7)) {
            case 1 -> given.remove(SHARDS[0]);
            case 2 -> given.putIfAbsent(SHARDS[2], header(SHARDS[2], "{}", 0));
            default -> {
            }
        }
        return new ShardSet(index(weightMap, headers), given);
    }

    /** One shard: a few U8 tensors of chosen lengths, contiguous, in a file of the implied size. */
    private SafetensorsHeader shard(String name) throws IOException {
        StringBuilder json = new StringBuilder("{");
        long payload = 0;
        int count = d.consumeInt(0, 5);
        boolean huge = d.consumeBoolean();
        List<String> used = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            // distinct names by default; names from a shared pool make tensors that sit in two shards
            String tensor = d.consumeInt(0, 3) == 1 ? d.pickValue(TENSORS) : name + "/" + i;
            long length = huge ? d.pickValue(HUGE) : d.consumeLong(0, 64);
            if (used.contains(tensor) || length > Long.MAX_VALUE - 4096 - payload) {
                continue;
            }
            used.add(tensor);
            json.append(used.size() == 1 ? "" : ",").append(JsonSpelling.string(d, tensor))
                    .append(":{\"dtype\":\"U8\",\"shape\":[").append(length).append("],\"data_offsets\":[")
                    .append(payload).append(',').append(payload + length).append("]}");
            payload += length;
        }
        return header(name, json.append('}').toString(), payload);
    }

    private static SafetensorsHeader header(String name, String json, long payload) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        return Safetensors.parseHeader(name, bytes, 8 + bytes.length + payload, Limits.STRICT);
    }

    private byte[] index(Map<String, String> weightMap, Map<String, SafetensorsHeader> headers) {
        StringBuilder json = new StringBuilder("{");
        long truthTotal = headers.values().stream().flatMap(h -> h.tensors().stream())
                .mapToLong(t -> t.byteLength()).reduce(0, (a, b) -> a + b);
        switch (d.consumeInt(0, 5)) {
            case 1 -> json.append("\"metadata\":{\"format\":\"pt\"},");
            case 2 -> json.append("\"metadata\":{\"total_size\":").append(Long.toUnsignedString(truthTotal + 1))
                    .append("},");
            case 3 -> json.append("\"metadata\":{\"total_size\":").append(d.consumeLong(0, Long.MAX_VALUE))
                    .append("},");
            default -> json.append("\"metadata\":{\"total_size\":").append(Long.toUnsignedString(truthTotal))
                    .append("},");
        }
        json.append("\"weight_map\":{");
        boolean first = true;
        for (Map.Entry<String, String> e : weightMap.entrySet()) {
            json.append(first ? "" : ",").append(JsonSpelling.string(d, e.getKey())).append(':')
                    .append(JsonSpelling.string(d, e.getValue()));
            first = false;
        }
        return json.append("}}").toString().getBytes(StandardCharsets.UTF_8);
    }
}
