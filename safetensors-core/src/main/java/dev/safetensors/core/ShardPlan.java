package dev.safetensors.core;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits tensors into shards as huggingface_hub's {@code split_state_dict_into_shards_factory} does: tensors are
 * taken in order and added to the current shard until the next one would take it past the maximum (counting tensor
 * bytes only, as the hub does); then a new shard starts. A tensor larger than the maximum gets a shard of its own,
 * placed where the hub places it: before the shard being filled.
 */
final class ShardPlan {
    private ShardPlan() {
    }

    /**
     * @param entries  the tensors in order
     * @param maxBytes the largest sum of tensor bytes in one shard, {@code >= 1}
     * @return the shards, each a non-empty list of tensors; a single empty shard when there are no tensors
     */
    static List<List<WriterEntry>> split(List<WriterEntry> entries, long maxBytes) {
        List<List<WriterEntry>> shards = new ArrayList<>();
        List<WriterEntry> current = new ArrayList<>();
        long currentBytes = 0;
        for (WriterEntry e : entries) {
            long size = e.byteLength();
            if (size > maxBytes) {
                shards.add(List.of(e));
                continue;
            }
            if (!current.isEmpty() && currentBytes + size > maxBytes) {
                shards.add(List.copyOf(current));
                current.clear();
                currentBytes = 0;
            }
            current.add(e);
            currentBytes += size;
        }
        if (!current.isEmpty() || shards.isEmpty()) {
            shards.add(List.copyOf(current));
        }
        return shards;
    }
}
