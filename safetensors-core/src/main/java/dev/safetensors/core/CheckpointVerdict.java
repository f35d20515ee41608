package dev.safetensors.core;

import dev.safetensors.InvalidHeaderException;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.SourceStatistics;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What checking a whole checkpoint found ({@link Checkpoint#check}): a verdict for every shard, not only up to the
 * first bad one, and whether the index and the shards agree ({@link ShardIndex#verifyAgainst}), judged only when
 * every shard passed.
 *
 * @param files       where the files are
 * @param shards      one verdict per shard, in the order of {@link CheckpointFiles#shards()}
 * @param consistency why the index and the shards disagree, when every shard passed and they do; otherwise empty
 * @param cost        the requests made: locating, the index, every header
 */
public record CheckpointVerdict(CheckpointFiles files, List<ShardVerdict> shards,
                                Optional<InvalidHeaderException> consistency, SourceStatistics cost) {
    /**
     * Copies the list.
     *
     * @param files       where the files are
     * @param shards      one verdict per shard
     * @param consistency the index's disagreement with the shards, if any
     * @param cost        the requests made
     */
    public CheckpointVerdict {
        Objects.requireNonNull(files, "files");
        shards = List.copyOf(shards);
        Objects.requireNonNull(consistency, "consistency");
        Objects.requireNonNull(cost, "cost");
    }

    /** @return whether every shard passed and the index agrees with them */
    public boolean valid() {
        return consistency.isEmpty() && shards.stream().allMatch(ShardVerdict::valid);
    }

    /** @return the first failure in shard order, then the consistency failure; empty when {@link #valid()} */
    public Optional<IOException> firstFailure() {
        for (ShardVerdict s : shards) {
            if (s.failure().isPresent()) {
                return s.failure();
            }
        }
        return consistency.map(e -> e);
    }

    /** @return the headers of the shards that passed, in shard order */
    public List<SafetensorsHeader> headers() {
        List<SafetensorsHeader> all = new ArrayList<>();
        for (ShardVerdict s : shards) {
            s.header().ifPresent(all::add);
        }
        return all;
    }

    /** @return the totals over every shard, when every shard passed */
    public Optional<TensorTotals> totals() {
        return shards.stream().allMatch(ShardVerdict::valid) ? Optional.of(TensorTotals.of(headers()))
                : Optional.empty();
    }
}
