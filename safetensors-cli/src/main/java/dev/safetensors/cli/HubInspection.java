package dev.safetensors.cli;

import dev.safetensors.DType;
import dev.safetensors.Location;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.SourceStatistics;
import dev.safetensors.core.CheckpointMetadata;
import dev.safetensors.core.SafetensorsClient;
import dev.safetensors.core.ReadOptions;
import dev.safetensors.core.TensorTotals;

import java.io.IOException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * {@code inspect} of a Hub repository: the library's one-call metadata ({@link CheckpointMetadata}) for each
 * checkpoint the repository holds (or the one {@code --path} names), read with this run's registry and policy, and
 * reported as every other checkpoint is: one result per shard, then one {@code checkpoint} result (the same JSON
 * layout as an index's), whose parameters are counted from {@code config.json}'s {@code quantization_config} when it
 * declares one, saying so in {@code parameter_counting}.
 */
final class HubInspection {
    private HubInspection() {
    }

    /**
     * @param source  the repository location as typed
     * @param folder  the {@code --path} folder, or {@code null} for every checkpoint
     * @param common  the run's options (policy, S3 settings)
     * @param tensors whether to list every tensor
     * @param output  where results go
     * @param text    how a result reads as text
     * @return the exit code
     */
    static int run(String source, String folder, CommonOptions common, boolean tensors, Output output,
                   Function<SourceResult, String> text) {
        Location location = Location.parse(source);
        List<CheckpointMetadata> all;
        try {
            SafetensorsClient options = common.opener().options(location, common.limits(), ReadOptions.DEFAULT);
            all = folder == null ? CheckpointMetadata.readAll(source, options)
                    : List.of(CheckpointMetadata.read(source, folder, options));
        } catch (IOException | RuntimeException e) {
            SourceResult r = SourceResult.builder(location.display(), SourceResult.Kind.CHECKPOINT)
                    .fail(Failure.from(e, location.display())).build();
            output.result(r, tensors, text);
            return r.status().exitCode();
        }
        for (CheckpointMetadata m : all) {
            String name = ShardExpander.named(location.display(), m.files().folder());
            boolean sharded = m.files().isSharded();
            if (sharded) {
                for (int i = 0; i < m.headers().size(); i++) {
                    output.result(SourceResult.builder(m.files().shards().get(i).display(), SourceResult.Kind.SHARD)
                            .checkpoint(name).header(m.headers().get(i)).pass(Check.PREFIX).pass(Check.HEADER)
                            .pass(Check.LAYOUT).build(), tensors, text);
                }
            }
            SourceResult.Builder r = SourceResult.builder(name, SourceResult.Kind.CHECKPOINT)
                    .totals(counted(m)).cost(m.cost()).attributes(m.files().attributes())
                    .shardCount(m.headers().size()).parameterCounting(m.counting());
            if (sharded) {
                r.pass(Check.INDEX).pass(Check.SHARDS).pass(Check.CONSISTENCY);
                m.files().index().orElseThrow().totalSize().ifPresent(r::indexTotalSize);
            } else {
                r.header(m.headers().get(0)).pass(Check.PREFIX).pass(Check.HEADER).pass(Check.LAYOUT);
            }
            output.result(r.build(), tensors, text);
        }
        return Status.VALID.exitCode();
    }

    /** The stored totals, with the parameters as {@link CheckpointMetadata} counted them. */
    private static TensorTotals counted(CheckpointMetadata m) {
        TensorTotals stored = TensorTotals.of(m.headers());
        Map<DType, TensorTotals.PerDtype> by = new EnumMap<>(DType.class);
        stored.byDtype().forEach((dtype, d) -> by.put(dtype, new TensorTotals.PerDtype(d.tensors(),
                m.parameters().getOrDefault(dtype, 0L), d.bytes())));
        return new TensorTotals(stored.fileBytes(), stored.headerBytes(), stored.payloadBytes(), stored.tensors(),
                m.totalParameters(), by);
    }
}
