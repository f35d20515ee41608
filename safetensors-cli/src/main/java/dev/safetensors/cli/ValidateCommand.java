package dev.safetensors.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code safetensors validate}: one verdict line per source. */
@Command(name = "validate", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Check each source's prefix, header and layout against the strict rules (or --policy"
                + " official) and print one line per source: OK, INVALID, UNSUPPORTED or ERROR, with the code and"
                + " message.",
                "Sharded checkpoints (*.safetensors.index.json, hf://OWNER/REPO) are expanded: every shard, then the"
                        + " index cross-checked against the shards.",
                "Exit status: 0 all valid, 1 some invalid or unsupported, 2 usage error, 3 some source unreadable."},
        footer = {"", "Examples:",
                "  safetensors validate model.safetensors",
                "  safetensors validate --jobs 16 checkpoints/*.safetensors",
                "  safetensors validate model.safetensors.index.json",
                "  safetensors validate --json --policy official https://example.com/model.safetensors"})
final class ValidateCommand implements Callable<Integer> {
    private final PrintStream out;
    private final PrintStream err;

    @Mixin
    CommonOptions common;

    @Mixin
    JobsOption jobs;

    @Parameters(arity = "1..*", paramLabel = "SOURCE", description = "A file (a local path, or an s3, gs, https or"
            + " hf URL), a *.safetensors.index.json, or a Hub repository hf://OWNER/REPO[@REVISION].")
    List<String> sources;

    /**
     * @param out stdout
     * @param err stderr
     */
    ValidateCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() {
        return CheckRun.headerChecks(sources, common, jobs.value(), out, err, false, TextFormatter::statusLine);
    }
}
