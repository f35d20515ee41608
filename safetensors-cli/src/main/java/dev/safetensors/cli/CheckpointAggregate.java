package dev.safetensors.cli;

import dev.safetensors.core.TensorTotals;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.SafetensorsHeader;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one result for a sharded checkpoint as a whole, from its index and its shards' results: valid only when the
 * index parsed, every shard passed its own checks, and the index and shards agree
 * ({@link dev.safetensors.core.ShardIndex#verifyAgainst}). Totals (bytes, tensors, parameters by dtype) are the sum
 * over the shards, given only when every shard could be read.
 */
final class CheckpointAggregate {
    private CheckpointAggregate() {
    }

    /**
     * @param checkpoint the expanded checkpoint
     * @param shards     the results of its shards, in the order of {@link Target.Checkpoint#shards()}
     * @return the checkpoint's result
     */
    static SourceResult of(Target.Checkpoint checkpoint, List<SourceResult> shards) {
        SourceResult.Builder result = SourceResult.builder(checkpoint.source(), SourceResult.Kind.CHECKPOINT)
                .cost(checkpoint.cost()).attributes(checkpoint.attributes());
        if (checkpoint.failure() != null) {
            return result.fail(checkpoint.failure()).build();
        }
        result.pass(Check.INDEX).shardCount(checkpoint.shards().size());
        checkpoint.index().totalSize().ifPresent(result::indexTotalSize);

        TensorTotals totals = TensorTotals.NONE;
        SourceResult worst = null;
        Map<String, SafetensorsHeader> headers = new LinkedHashMap<>();
        for (int i = 0; i < shards.size(); i++) {
            SourceResult shard = shards.get(i);
            result.shardsCost(shard.cost());
            if (shard.header().isPresent()) {
                headers.put(checkpoint.index().shards().get(i), shard.header().get());
                totals = totals.plus(shard.totals().orElseThrow());
            }
            if (shard.status() != Status.VALID && (worst == null || worst.status().worse(shard.status())
                    != worst.status())) {
                worst = shard;
            }
        }
        if (worst != null) {
            Failure f = worst.failure().orElseThrow();
            return result.fail(new Failure(f.status(), f.code(), "shard " + worst.source() + ": " + f.message(),
                    Check.SHARDS, f.cause())).build();
        }
        result.pass(Check.SHARDS).totals(totals).parameterCounting("stored elements: config.json is not read for"
                + " an index");
        try {
            checkpoint.index().verifyAgainst(headers);
            result.pass(Check.CONSISTENCY);
        } catch (InvalidHeaderException e) {
            Failure f = Failure.from(e, checkpoint.source());
            result.fail(new Failure(f.status(), f.code(), f.message(), Check.CONSISTENCY, e));
        }
        return result.build();
    }
}
