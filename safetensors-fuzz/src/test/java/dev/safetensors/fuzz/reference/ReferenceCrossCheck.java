package dev.safetensors.fuzz.reference;

import java.math.BigInteger;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A second judgment of an index against its shards' headers, from the contract of {@code ShardIndex.verifyAgainst}:
 * the shards given are exactly the shards the index names; every tensor of a shard is mapped to that shard (so none
 * is unmapped or in two shards); every mapped tensor is in its shard; and {@code total_size}, when present, is the
 * sum of the tensors' bytes. The sum is computed exactly: one that does not fit in a signed 64-bit integer cannot be
 * returned, nor equal any {@code total_size}, so such an index is inconsistent.
 */
public final class ReferenceCrossCheck {
    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    /**
     * One tensor of a shard, as its validated header describes it.
     *
     * @param name       the tensor's name
     * @param byteLength its size in bytes
     */
    public record ShardTensor(String name, long byteLength) {
    }

    private ReferenceCrossCheck() {
    }

    /**
     * @param index  a valid index's judgement
     * @param shards each given shard's tensors, by shard file name
     * @return the total bytes when consistent, empty when not
     */
    public static Optional<Long> check(IndexJudgement index, Map<String, List<ShardTensor>> shards) {
        Map<String, String> weightMap = index.weightMap();
        if (!shards.keySet().equals(Set.copyOf(weightMap.values()))) {
            return Optional.empty();
        }
        Map<String, String> foundIn = new HashMap<>();
        BigInteger total = BigInteger.ZERO;
        for (Map.Entry<String, List<ShardTensor>> shard : shards.entrySet()) {
            for (ShardTensor t : shard.getValue()) {
                if (!shard.getKey().equals(weightMap.get(t.name())) || foundIn.put(t.name(), shard.getKey()) != null) {
                    return Optional.empty();
                }
                total = total.add(BigInteger.valueOf(t.byteLength()));
            }
        }
        if (!foundIn.keySet().equals(weightMap.keySet()) || total.compareTo(LONG_MAX) > 0) {
            return Optional.empty();
        }
        if (index.totalSize().isPresent() && index.totalSize().getAsLong() != total.longValueExact()) {
            return Optional.empty();
        }
        return Optional.of(total.longValueExact());
    }
}
