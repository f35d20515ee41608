package dev.safetensors.cli.checks;

import dev.safetensors.InvalidHeaderException;
import dev.safetensors.core.CheckpointVerdict;
import dev.safetensors.cli.results.Check;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.SourceResult;

/**
 * The one result for a sharded checkpoint as a whole, from the library's verdict
 * ({@link dev.safetensors.core.SafetensorsClient#check}): valid only when the index parsed, every shard passed its own
 * checks, and the index and shards agree ({@link dev.safetensors.core.ShardIndex#verifyAgainst}). Totals (bytes,
 * tensors, parameters by dtype) are the sum over the shards, given only when every shard passed.
 */
final class CheckpointResult {
    private CheckpointResult() {
    }

    /**
     * @param checkpoint the expanded checkpoint
     * @param verdict    the library's verdict on it
     * @param worst      its worst shard result, or {@code null} when every shard passed
     * @return the checkpoint's result
     */
    static SourceResult of(Target.Checkpoint checkpoint, CheckpointVerdict verdict, SourceResult worst) {
        SourceResult.Builder result = SourceResult.builder(checkpoint.source(), SourceResult.Kind.CHECKPOINT)
                .cost(checkpoint.cost()).shardsCost(verdict.cost().minus(checkpoint.cost()))
                .attributes(checkpoint.attributes());
        result.pass(Check.INDEX).shardCount(checkpoint.shards().size());
        checkpoint.files().index().orElseThrow().totalSize().ifPresent(result::indexTotalSize);
        if (worst != null) {
            Failure f = worst.failure().orElseThrow();
            return result.fail(new Failure(f.status(), f.code(), "shard " + worst.source() + ": " + f.message(),
                    Check.SHARDS, f.cause())).build();
        }
        result.pass(Check.SHARDS).totals(verdict.totals().orElseThrow()).parameterCounting("stored elements:"
                + " config.json is not read for an index");
        if (verdict.disagreement().isPresent()) {
            InvalidHeaderException e = verdict.disagreement().get();
            Failure f = Failure.from(e, checkpoint.source());
            result.fail(new Failure(f.status(), f.code(), f.message(), Check.CONSISTENCY, e));
        } else {
            result.pass(Check.CONSISTENCY);
        }
        return result.build();
    }
}
