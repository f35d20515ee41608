package dev.safetensors.cli.checks;

import dev.safetensors.DType;
import dev.safetensors.Location;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.core.CheckpointFiles;
import dev.safetensors.core.CheckpointMetadata;
import dev.safetensors.core.SafetensorsClient;
import dev.safetensors.core.ReadOptions;
import dev.safetensors.core.TensorTotals;

import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import dev.safetensors.cli.arguments.CommonOptions;
import dev.safetensors.cli.output.Output;
import dev.safetensors.cli.results.Check;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.SourceResult;
import dev.safetensors.cli.results.Status;

/**
 * {@code inspect} of a Hub repository: each checkpoint the repository holds (or the one {@code --path} names) is
 * checked as every other checkpoint is, through the library's check service ({@link Batch}): every shard's header
 * read and validated, one result per shard, the index judged against them. A checkpoint that passed then gets one
 * {@code checkpoint} result (the same JSON layout as an index's) from the library's metadata
 * ({@link SafetensorsClient#metadata}), whose parameters are counted from {@code config.json}'s
 * {@code quantization_config} when it declares one, saying so in {@code parameter_counting}; no header is read twice.
 */
public final class HubInspection {
    private HubInspection() {
    }

    /**
     * @param source  the repository location as typed
     * @param folder  the {@code --path} folder, or {@code null} for every checkpoint
     * @param common  the run's options (policy, S3 settings)
     * @param jobs    files examined at once
     * @param tensors whether to list every tensor
     * @param output  where results go
     * @param text    how a result reads as text
     * @return the exit code: the worst status seen
     */
    public static int run(String source, String folder, CommonOptions common, int jobs, boolean tensors, Output output,
                          Function<SourceResult, String> text) {
        Location location = Location.parse(source);
        SafetensorsClient client;
        List<CheckpointFiles> all;
        try {
            client = common.opener().options(location, common.limits(), ReadOptions.DEFAULT);
            all = folder == null ? client.locateAll(location) : List.of(client.locate(location, folder));
        } catch (IOException | RuntimeException e) {
            SourceResult r = SourceResult.builder(location.display(), SourceResult.Kind.CHECKPOINT)
                    .fail(Failure.from(e, location.display())).build();
            output.result(r, tensors, text);
            return r.status().exitCode();
        }
        Status worst = Status.VALID;
        for (CheckpointFiles files : all) {
            String name = ShardExpander.named(location.display(), files.folder());
            List<SafetensorsHeader> headers = new ArrayList<>();
            List<SourceResult> whole = new ArrayList<>();
            Status seen = new Batch(jobs, () -> { }).run(List.of(ShardExpander.target(name, files)),
                    new HeaderCheck(common.opener(), common.limits()), r -> {
                        if (r.kind() == SourceResult.Kind.SHARD) {
                            r.header().ifPresent(headers::add);
                            output.result(r, tensors, text);
                        } else {
                            whole.add(r);
                        }
                    });
            SourceResult checked = whole.get(0);
            SourceResult r = checked.status() == Status.VALID ? counted(client, files, name, headers, checked)
                    : failed(name, files, checked);
            output.result(r, tensors, text);
            worst = worst.worse(seen).worse(r.status());
        }
        return worst.exitCode();
    }

    /** The checkpoint's result once every check passed, with the parameters counted as the metadata counts them. */
    private static SourceResult counted(SafetensorsClient client, CheckpointFiles files, String name,
                                        List<SafetensorsHeader> shardHeaders, SourceResult checked) {
        List<SafetensorsHeader> headers = files.isSharded() ? shardHeaders : List.of(checked.header().orElseThrow());
        CheckpointMetadata m;
        try {
            // the checkpoint's whole cost: locating, the index, every shard's header, and then the config
            m = client.metadata(files, headers, checked.cost().plus(checked.shardsCost()));
        } catch (IOException | RuntimeException e) {
            return SourceResult.builder(name, SourceResult.Kind.CHECKPOINT).cost(checked.cost())
                    .attributes(files.attributes()).fail(Failure.from(e, name)).build();
        }
        SourceResult.Builder r = SourceResult.builder(name, SourceResult.Kind.CHECKPOINT)
                .totals(counted(m)).cost(m.cost()).attributes(files.attributes())
                .shardCount(m.headers().size()).parameterCounting(m.counting());
        if (files.isSharded()) {
            r.pass(Check.INDEX).pass(Check.SHARDS).pass(Check.CONSISTENCY);
            files.index().orElseThrow().totalSize().ifPresent(r::indexTotalSize);
        } else {
            r.header(m.headers().get(0)).pass(Check.PREFIX).pass(Check.HEADER).pass(Check.LAYOUT);
        }
        return r.build();
    }

    /** A checkpoint that failed a check: its result, named as the repository's checkpoint. */
    private static SourceResult failed(String name, CheckpointFiles files, SourceResult checked) {
        if (checked.kind() == SourceResult.Kind.CHECKPOINT) {
            return checked;
        }
        // a single-file checkpoint: its file's failure, reported as the checkpoint's
        return SourceResult.builder(name, SourceResult.Kind.CHECKPOINT).cost(checked.cost())
                .attributes(files.attributes()).fail(checked.failure().orElseThrow()).build();
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
