package dev.safetensors.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** {@code safetensors validate}: one verdict line per source. */
final class ValidateCommand implements Subcommand {
    private final PrintStream out;
    private final PrintStream err;

    final CommonOptions common = new CommonOptions();

    final JobsOption jobs = new JobsOption();

    final List<String> sources = new ArrayList<>();

    /**
     * @param out stdout
     * @param err stderr
     */
    ValidateCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public CommandSpec spec() {
        CommandSpec spec = new CommandSpec("validate", List.of("Check each source's prefix, header and layout"
                + " against the strict rules (or --policy"
                + " official) and print one line per source: OK, INVALID, UNSUPPORTED or ERROR, with the code and"
                + " message.",
                "Sharded checkpoints (*.safetensors.index.json, hf://OWNER/REPO) are expanded: every shard, then the"
                        + " index cross-checked against the shards.",
                "Exit status: 0 all valid, 1 some invalid or unsupported, 2 usage error, 3 some source unreadable."),
                List.of("", "Examples:",
                "  safetensors validate model.safetensors",
                "  safetensors validate --jobs 16 checkpoints/*.safetensors",
                "  safetensors validate model.safetensors.index.json",
                "  safetensors validate --json --policy official https://example.com/model.safetensors"));
        common.declare(spec);
        jobs.declare(spec);
        spec.positional(new PositionalSpec("SOURCE", 1, PositionalSpec.MANY, "A file (a local path, or an s3, gs,"
                + " https or hf URL), a *.safetensors.index.json, or a Hub repository hf://OWNER/REPO[@REVISION].",
                v -> sources.add(v)));
        return spec;
    }

    @Override
    public int call() {
        return CheckRun.headerChecks(sources, common, jobs.value(), out, err, false, TextFormatter::statusLine);
    }
}
