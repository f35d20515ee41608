package dev.safetensors.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.util.concurrent.Callable;

/** The top-level {@code safetensors} command: only help and version; the work is in the subcommands. */
@Command(name = "safetensors", mixinStandardHelpOptions = true, versionProvider = VersionInfo.class,
        usageHelpAutoWidth = true,
        description = {"Inspect, validate and verify safetensors checkpoints on local disk, S3 (s3://), Google Cloud"
                + " Storage (gs://), HTTPS and the Hugging Face Hub (hf://), reading only the bounded header"
                + " unless asked for more."},
        footer = {"", "Exit status: 0 every source valid, 1 some source invalid or unsupported, 2 usage error,"
                + " 3 some source could not be read (or the output could not be written).",
                "", "Examples:",
                "  safetensors inspect model.safetensors",
                "  safetensors validate --json shards/*.safetensors",
                "  safetensors inspect hf://openai-community/gpt2",
                "  safetensors verify model.safetensors --sha256 3f5a...e1",
                "  safetensors dump --f32 model.safetensors model.norm.weight",
                "", "Run 'safetensors COMMAND --help' for a command's options."})
final class SafetensorsCommand implements Callable<Integer> {
    private final PrintStream err;

    @Spec
    CommandSpec spec;

    /** @param err where the usage goes when no subcommand is given */
    SafetensorsCommand(PrintStream err) {
        this.err = err;
    }

    @Override
    public Integer call() {
        err.println("safetensors: a command is required");
        spec.commandLine().usage(err);
        return Status.USAGE;
    }
}
