package dev.safetensors.fuzz.reference;

import java.util.Map;
import java.util.OptionalLong;

/**
 * What the reference concluded about a shard index.
 *
 * @param valid     whether the index is well formed
 * @param reason    why not, in words; empty when valid
 * @param weightMap tensor name to shard file name in document order, when valid
 * @param totalSize {@code metadata.total_size}, when valid and present
 */
public record IndexJudgement(boolean valid, String reason, Map<String, String> weightMap, OptionalLong totalSize) {
}
