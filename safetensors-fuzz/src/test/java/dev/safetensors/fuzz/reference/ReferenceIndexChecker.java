package dev.safetensors.fuzz.reference;

import dev.safetensors.fuzz.reference.JsonValue.JsonObject;
import dev.safetensors.fuzz.reference.JsonValue.JsonString;
import dev.safetensors.fuzz.reference.JsonValue.Member;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A second judgment of a sharded checkpoint index ({@code model.safetensors.index.json}), written from the contract
 * in {@code ShardIndex}'s documentation, since {@code RULES.md} has no index section: at most 64 MiB; strict UTF-8
 * and strict JSON in the sense of rule 8 (so no lone-surrogate escapes anywhere); a root object; no duplicate names
 * in the root, {@code metadata} or {@code weight_map} objects; a {@code weight_map} object of strings, each a plain
 * file name beside the index ending in {@code .safetensors} after a non-empty stem; {@code metadata}, when present, an object whose {@code total_size}, when present, is a
 * plain integer from 0 to 2^63-1. Anything else in the root or in {@code metadata} is allowed and ignored.
 */
public final class ReferenceIndexChecker {
    private static final int MAX_BYTES = 64 * 1024 * 1024;
    /** The index's nesting bound: {@code ShardIndex.MAX_DEPTH}, which its documentation does not state. */
    private static final int MAX_DEPTH = 64;
    private static final Set<String> NOT_FILE_NAMES = Set.of("", ".", "..");

    private ReferenceIndexChecker() {
    }

    public static IndexJudgement check(byte[] index) {
        try {
            return judge(index);
        } catch (Rejection r) {
            return new IndexJudgement(false, r.getMessage(), Map.of(), OptionalLong.empty());
        }
    }

    private static IndexJudgement judge(byte[] index) {
        if (index.length > MAX_BYTES) {
            throw new Rejection("index", "larger than 64 MiB");
        }
        String text = StrictUtf8.decode(index, 0, index.length, "index");
        JsonObject root = JsonTreeParser.parseObjectDocument(text, MAX_DEPTH, true);
        Map<String, JsonValue> fields = uniqueMembers(root, "root");
        if (!(fields.get("weight_map") instanceof JsonObject weights)) {
            throw new Rejection("index", "weight_map is missing or not an object");
        }
        Map<String, String> weightMap = new LinkedHashMap<>();
        uniqueMembers(weights, "weight_map").forEach((tensor, shard) -> {
            if (!(shard instanceof JsonString s)) {
                throw new Rejection("index", "the shard of " + tensor + " is not a string");
            }
            requirePlainFileName(s.value());
            weightMap.put(tensor, s.value());
        });
        OptionalLong totalSize = OptionalLong.empty();
        JsonValue metadata = fields.get("metadata");
        if (metadata != null) {
            if (!(metadata instanceof JsonObject m)) {
                throw new Rejection("index", "metadata is not an object");
            }
            JsonValue total = uniqueMembers(m, "metadata").get("total_size");
            if (total != null) {
                totalSize = OptionalLong.of(PlainInteger.of(total, "index", "total_size"));
            }
        }
        return new IndexJudgement(true, "", weightMap, totalSize);
    }

    private static Map<String, JsonValue> uniqueMembers(JsonObject o, String where) {
        Map<String, JsonValue> fields = new LinkedHashMap<>();
        for (Member m : o.members()) {
            if (fields.put(m.name(), m.value()) != null) {
                throw new Rejection("index", "duplicate name " + m.name() + " in " + where);
            }
        }
        return fields;
    }

    /** A name that stays beside the index: no path separators, no dot names, no URL or drive colon, no controls. */
    private static void requirePlainFileName(String shard) {
        if (NOT_FILE_NAMES.contains(shard) || shard.contains("/") || shard.contains("\\") || shard.contains(":")
                || shard.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            throw new Rejection("index", "shard " + shard + " is not a plain file name");
        }
        if (!shard.endsWith(".safetensors") || shard.equals(".safetensors")) {
            throw new Rejection("index", "shard " + shard + " is not a .safetensors file name");
        }
    }
}
