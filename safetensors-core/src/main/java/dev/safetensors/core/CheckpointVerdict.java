package dev.safetensors.core;

import dev.safetensors.InvalidHeaderException;
import dev.safetensors.Location;
import dev.safetensors.SourceStatistics;

import java.io.IOException;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link SafetensorsClient#check} found for one checkpoint as a whole, given after the verdicts of its files:
 * whether it could be located, how many of its files failed, and, when every file passed, whether the index and the
 * shards agree (the rules of {@link ShardIndex#verifyAgainst}, judged one shard at a time as the verdicts arrive).
 * It holds counts and sums, never the headers, so a checkpoint of any number of shards costs the same memory.
 *
 * @param location     the checkpoint as it was named (the location given, or the located file)
 * @param files        its files, when it could be located
 * @param shards       how many files were checked
 * @param failedShards how many of them failed
 * @param failure      why the checkpoint is not valid: it could not be located, else the first failed file's
 *                     failure in shard order, else the index's disagreement with the shards; empty when valid
 * @param totals       the totals over every file, when every file passed
 * @param cost         the requests made: locating, the index, and every file
 */
public record CheckpointVerdict(Location location, Optional<CheckpointFiles> files, int shards, int failedShards,
                                Optional<IOException> failure, Optional<TensorTotals> totals,
                                SourceStatistics cost) implements CheckVerdict {
    /**
     * Checks that nothing is {@code null}.
     *
     * @param location     the checkpoint as named
     * @param files        its files, when located
     * @param shards       files checked
     * @param failedShards files that failed
     * @param failure      why it is not valid
     * @param totals       the totals, when every file passed
     * @param cost         the requests made
     */
    public CheckpointVerdict {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(files, "files");
        Objects.requireNonNull(failure, "failure");
        Objects.requireNonNull(totals, "totals");
        Objects.requireNonNull(cost, "cost");
    }

    /** @return whether it was located, every file passed and the index agrees with them */
    @Override
    public boolean valid() {
        return failure.isEmpty();
    }

    /** @return the index's disagreement with the shards, when it was located, every file passed and they disagree */
    public Optional<InvalidHeaderException> disagreement() {
        return files.isPresent() && failedShards == 0 && failure.orElse(null) instanceof InvalidHeaderException e
                ? Optional.of(e) : Optional.empty();
    }
}
