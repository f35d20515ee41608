package dev.safetensors.cli;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import dev.safetensors.cli.arguments.HelpText;
import dev.safetensors.cli.commands.DownloadCommand;
import dev.safetensors.cli.commands.DumpCommand;
import dev.safetensors.cli.commands.InspectCommand;
import dev.safetensors.cli.commands.ManifestCommand;
import dev.safetensors.cli.commands.RecoverCommand;
import dev.safetensors.cli.commands.ReshardCommand;
import dev.safetensors.cli.commands.Subcommand;
import dev.safetensors.cli.commands.ValidateCommand;
import dev.safetensors.cli.commands.VerifyCommand;

/**
 * The top-level {@code safetensors} command: the table of subcommands, its help and version; the work is in the
 * subcommands. Only the subcommand being run is built.
 */
final class SafetensorsCommand {
    private static final List<String> DESCRIPTION = List.of("Inspect, validate and verify safetensors checkpoints"
            + " on local disk, S3 (s3://), Google Cloud Storage (gs://), Azure Blob Storage (az://, abfss://), HTTPS"
            + " and the Hugging Face Hub (hf://),"
            + " reading only the bounded header unless asked for more.");
    private static final List<String> FOOTER = List.of("",
            "Exit status: 0 every source valid, 1 some source invalid or unsupported, 2 usage error,",
            "  3 some source could not be read (or the output could not be written).",
            "", "Examples:",
            "  safetensors inspect model.safetensors",
            "  safetensors validate --json shards/*.safetensors",
            "  safetensors inspect hf://openai-community/gpt2",
            "  safetensors verify model.safetensors --sha256 3f5a...e1",
            "  safetensors dump --f32 model.safetensors model.norm.weight",
            "", "Run 'safetensors COMMAND --help' for a command's options.");

    private SafetensorsCommand() {
    }

    /** A subcommand's one-line summary for the top-level help, and how to build it. */
    private record Entry(String summary, Supplier<Subcommand> factory) {
    }

    private static Map<String, Entry> commands() {
        Map<String, Entry> commands = new LinkedHashMap<>();
        commands.put("inspect", new Entry("Summarize what each source holds, reading only its header.",
                InspectCommand::new));
        commands.put("validate", new Entry("Check each source against the strict rules (or --policy official):"
                + " one verdict line per source.", ValidateCommand::new));
        commands.put("verify", new Entry("Compare a file's size and SHA-256 with what is expected, or every file"
                + " of a manifest.", VerifyCommand::new));
        commands.put("manifest", new Entry("Write a manifest of every file: source, size, SHA-256 and identity.",
                ManifestCommand::new));
        commands.put("dump", new Entry("Write one tensor's raw bytes, or its values widened to float32.",
                DumpCommand::new));
        commands.put("reshard", new Entry("Split, merge or re-lay out a checkpoint into local shards, verified"
                + " tensor by tensor.", ReshardCommand::new));
        commands.put("download", new Entry("Download a checkpoint to a folder or into the Hugging Face cache, verified.", DownloadCommand::new));
        commands.put("sign", new Entry("Sign a model's files into an OpenSSF Model Signing bundle (verify it with"
                + " verify --signature).", dev.safetensors.cli.commands.SignCommand::new));
        commands.put("recover", new Entry("Finish a commit a killed writer left in a local folder, from its own"
                + " journal only.", RecoverCommand::new));
        return commands;
    }

    /**
     * @param name the first argument
     * @param out  stdout
     * @param err  stderr
     * @return the subcommand of that name, or {@code null} if there is none
     */
    static Subcommand named(String name, PrintStream out, PrintStream err) {
        Entry entry = commands().get(name);
        return entry == null ? null : entry.factory().get().streams(out, err);
    }

    /** @return the top-level help: the description, the subcommands with a summary each, exit codes and examples */
    static String help() {
        Map<String, String> summaries = new LinkedHashMap<>();
        commands().forEach((name, entry) -> summaries.put(name, entry.summary()));
        return HelpText.ofTop(DESCRIPTION, summaries, FOOTER);
    }
}
