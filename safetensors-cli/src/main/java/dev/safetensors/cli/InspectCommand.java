package dev.safetensors.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code safetensors inspect}: what each source holds, read from its header alone. */
@Command(name = "inspect", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Summarize what each source holds, reading only its header: tensors, parameters and bytes by"
                + " dtype, header and payload sizes, 8-byte alignment, metadata, and what the read cost.",
                "A *.safetensors.index.json or an hf://OWNER/REPO[@REVISION] repository is expanded into its shards"
                        + " (one line each) and one summary for the whole checkpoint."},
        footer = {"", "Examples:",
                "  safetensors inspect model.safetensors",
                "  safetensors inspect --tensors model.safetensors",
                "  safetensors inspect hf://openai-community/gpt2",
                "  safetensors inspect --json s3://bucket/models/model.safetensors.index.json"})
final class InspectCommand implements Callable<Integer> {
    private final PrintStream out;
    private final PrintStream err;

    @Mixin
    CommonOptions common;

    @Option(names = "--tensors", description = "Also list every tensor: name, dtype, shape and bytes.")
    boolean tensors;

    @Parameters(arity = "1..*", paramLabel = "SOURCE", description = "A file (a local path, or an s3, gs, https or"
            + " hf URL), a *.safetensors.index.json, or a Hub repository hf://OWNER/REPO[@REVISION].")
    List<String> sources;

    /**
     * @param out stdout
     * @param err stderr
     */
    InspectCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() {
        return CheckRun.headerChecks(sources, common, out, err, tensors, this::text);
    }

    private String text(SourceResult r) {
        boolean block = r.status() == Status.VALID && (r.kind() != SourceResult.Kind.SHARD || tensors);
        return block ? TextFormatter.inspectBlock(r, tensors) : TextFormatter.statusLine(r);
    }
}
