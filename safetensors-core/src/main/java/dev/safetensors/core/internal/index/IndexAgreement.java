package dev.safetensors.core.internal.index;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The rules an index and its shards' headers must agree by, judged one shard at a time in the index's shard order,
 * so that no more than one header is needed at once: every tensor of a shard is in the index and mapped to that
 * shard, no tensor is in two shards, every tensor the index maps is held by its shard, and {@code total_size}, when
 * given, equals the bytes the shards hold. The first disagreement is kept and later shards are not looked at. What is
 * remembered is one entry per tensor seen, never more than the index itself holds.
 */
public final class IndexAgreement {
    private final String source;
    private final List<String> shards;
    private final Map<String, String> weightMap;
    private final long totalSize;
    private final Map<String, String> seenIn = new HashMap<>();
    private int next;
    private long total;
    private InvalidHeaderException failure;

    /**
     * @param source    the index's name, for messages
     * @param shards    the shards in the index's order
     * @param weightMap tensor name to shard name
     * @param totalSize the declared {@code total_size}, or {@code -1}
     */
    public IndexAgreement(String source, List<String> shards, Map<String, String> weightMap, long totalSize) {
        this.source = source;
        this.shards = shards;
        this.weightMap = weightMap;
        this.totalSize = totalSize;
    }

    /**
     * @param shard  the shard's name as the index gives it; must be the next in the index's order
     * @param header its validated header
     */
    public void accept(String shard, SafetensorsHeader header) {
        if (failure != null) {
            return;
        }
        if (next >= shards.size() || !shards.get(next).equals(shard)) {
            failure = shards.contains(shard) ? invalid("no header was given for shard \"" + shards.get(next) + "\"")
                    : invalid("shard \"" + shard + "\" is not named by the index");
            return;
        }
        next++;
        for (TensorInfo t : header.tensors()) {
            String other = seenIn.putIfAbsent(t.name(), shard);
            if (other != null) {
                failure = invalid("tensor \"" + t.name() + "\" is in two shards: " + other + " and " + shard);
                return;
            }
            String mapped = weightMap.get(t.name());
            if (mapped == null) {
                failure = invalid("tensor \"" + t.name() + "\" of shard " + shard + " is not in the index");
                return;
            }
            if (!mapped.equals(shard)) {
                failure = invalid("tensor \"" + t.name() + "\" is in shard " + shard + " but the index maps it to "
                        + mapped);
                return;
            }
            if (t.byteLength() > Long.MAX_VALUE - total) {
                // a remote shard's size is the server's claim, so validated shards can still sum past 2^63
                failure = invalid("the shards' tensors hold more than 2^63-1 bytes together");
                return;
            }
            total += t.byteLength();
        }
    }

    /**
     * @return the sum of the tensors' bytes over all shards
     * @throws InvalidHeaderException with {@link ErrorCode#INVALID_INDEX} naming the first disagreement
     */
    public long finish() throws InvalidHeaderException {
        if (failure == null && next < shards.size()) {
            failure = invalid("no header was given for shard \"" + shards.get(next) + "\"");
        }
        if (failure == null) {
            for (Map.Entry<String, String> m : weightMap.entrySet()) {
                if (!seenIn.containsKey(m.getKey())) {
                    failure = invalid("tensor \"" + m.getKey() + "\" is mapped to " + m.getValue()
                            + " but that shard does not hold it");
                    break;
                }
            }
        }
        if (failure == null && totalSize >= 0 && totalSize != total) {
            failure = invalid("metadata.total_size is " + totalSize + " but the shards' tensors hold " + total
                    + " bytes");
        }
        if (failure != null) {
            throw failure;
        }
        return total;
    }

    private InvalidHeaderException invalid(String detail) {
        return new InvalidHeaderException(ErrorCode.INVALID_INDEX, source, detail, null, -1);
    }
}
