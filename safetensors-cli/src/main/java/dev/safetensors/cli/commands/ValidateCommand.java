package dev.safetensors.cli.commands;

import java.util.ArrayList;
import java.util.List;
import dev.safetensors.cli.arguments.CommandSpec;
import dev.safetensors.cli.arguments.CommonOptions;
import dev.safetensors.cli.arguments.JobsOption;
import dev.safetensors.cli.arguments.PositionalSpec;
import dev.safetensors.cli.arguments.SourceArguments;
import dev.safetensors.cli.arguments.UsageException;
import dev.safetensors.cli.checks.CheckRun;
import dev.safetensors.cli.output.TextFormatter;

/** {@code safetensors validate}: one verdict line per source. */
public final class ValidateCommand extends Subcommand {

    final CommonOptions common = new CommonOptions();

    final JobsOption jobs = new JobsOption();

    final SourceArguments selection = new SourceArguments();

    final List<String> sources = new ArrayList<>();

    @Override
    public CommandSpec spec() {
        CommandSpec spec = new CommandSpec("validate", List.of("Check each source's prefix, header and layout"
                + " against the strict rules (or --policy"
                + " official) and print one line per source: OK, INVALID, UNSUPPORTED or ERROR, with the code and"
                + " message.",
                "Sharded checkpoints (*.safetensors.index.json, hf://OWNER/REPO) are expanded: every shard, then the"
                        + " index cross-checked against the shards.",
                "Folders and prefixes are listed (one level, or all below with --recursive) for the files --include"
                        + " names (default *.safetensors and *.safetensors.index.json); each shard is checked once,"
                        + " under its index. An index is one checkpoint: --exclude never drops a shard its index"
                        + " names (a warning says so; exclude the index to skip the checkpoint). Results stream as"
                        + " they come; a summary closes the run on stderr.",
                "Exit status: 0 all valid, 1 some invalid or unsupported, 2 usage error, 3 some source unreadable."),
                List.of("", "Examples:",
                "  safetensors validate model.safetensors",
                "  safetensors validate --jobs 16 checkpoints/*.safetensors",
                "  safetensors validate model.safetensors.index.json",
                "  safetensors validate --json --recursive s3://bucket/models/",
                "  find . -name '*.safetensors' | safetensors validate -",
                "  safetensors validate --json --policy official https://example.com/model.safetensors"));
        common.declare(spec);
        jobs.declare(spec);
        selection.declare(spec);
        spec.positional(new PositionalSpec("SOURCE", 0, PositionalSpec.MANY, "A file (a local path, or an s3, gs,"
                + " az, abfss, https or hf URL), a *.safetensors.index.json, a Hub repository"
                + " hf://OWNER/REPO[@REVISION], a folder or prefix ending in / (s3://BUCKET/PREFIX/,"
                + " gs://BUCKET/PREFIX/, az://CONTAINER/PREFIX/, a local folder), or -"
                + " for one location a line on standard input.",
                v -> sources.add(v)));
        return spec;
    }

    @Override
    public int call() {
        if (sources.isEmpty() && selection.fromFile == null) {
            throw new UsageException("give a SOURCE, - for standard input, or --from-file FILE");
        }
        return common.finish("validate", CheckRun.headerChecks(sources, selection, common, jobs.value(), out, err,
                false, TextFormatter::statusLine));
    }
}
