package dev.safetensors.cli.commands;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import dev.safetensors.cli.arguments.CommandSpec;
import dev.safetensors.cli.arguments.CommonOptions;
import dev.safetensors.cli.arguments.JobsOption;
import dev.safetensors.cli.arguments.OptionSpec;
import dev.safetensors.cli.arguments.PositionalSpec;
import dev.safetensors.cli.arguments.SourceArguments;
import dev.safetensors.cli.arguments.UsageException;
import dev.safetensors.cli.backends.SourceOpener;
import dev.safetensors.cli.checks.CheckRun;
import dev.safetensors.cli.checks.DigestCheck;
import dev.safetensors.cli.checks.Expected;
import dev.safetensors.cli.checks.FileCheck;
import dev.safetensors.cli.checks.ManifestEntry;
import dev.safetensors.cli.checks.ManifestFile;
import dev.safetensors.cli.output.Output;
import dev.safetensors.cli.output.ProgressBar;
import dev.safetensors.cli.output.TextFormatter;
import dev.safetensors.cli.output.VersionInfo;
import dev.safetensors.cli.results.SourceResult;
import dev.safetensors.cli.results.Status;

/** {@code safetensors manifest}: record size, SHA-256 and identity of every file, for {@code verify --manifest}. */
public final class ManifestCommand extends Subcommand {

    final CommonOptions common = new CommonOptions();

    final JobsOption jobs = new JobsOption();

    final SourceArguments selection = new SourceArguments();

    boolean compute;

    final List<String> sources = new ArrayList<>();

    @Override
    public CommandSpec spec() {
        CommandSpec spec = new CommandSpec("manifest", List.of("Write a manifest (JSON, on stdout) of every file:"
                + " source, size, SHA-256, and the repository,"
                + " resolved revision, ETag or version where the source knows them. Sharded checkpoints and Hub"
                + " repositories are expanded into their shards, and each index file is recorded too (its size and"
                + " digest; verify --manifest compares it like any file). Each shard passes the header checks"
                + " first; files that do not are reported on stderr and left out.",
                "The SHA-256 is computed locally by streaming each file once, except for Hub files whose digest the"
                        + " Hub reports (X-Linked-Etag): that digest is recorded as reported_sha256, labelled as"
                        + " not computed here, unless --compute is given.",
                "--json changes nothing: the manifest is JSON already."),
                List.of("", "Examples:",
                "  safetensors manifest model.safetensors > model.manifest.json",
                "  safetensors manifest shards/model.safetensors.index.json > manifest.json",
                "  safetensors manifest hf://openai-community/gpt2@main > gpt2.manifest.json"));
        common.declare(spec);
        jobs.declare(spec);
        selection.declare(spec);
        spec.option(OptionSpec.flag("--compute", "Stream and hash Hub files too, instead of recording the digest"
                + " the Hub reports.",
                () -> compute = true));
        spec.positional(new PositionalSpec("SOURCE", 0, PositionalSpec.MANY, "Files, *.safetensors.index.json,"
                + " hf://OWNER/REPO[@REVISION], folders and prefixes ending in /, or - for one location a line on"
                + " standard input.",
                v -> sources.add(v)));
        return spec;
    }

    @Override
    public int call() {
        // the manifest is the only thing on stdout; every problem is a line on stderr
        Output problems = new Output(err, err, false, common.debug, common.quiet);
        if (sources.isEmpty() && selection.fromFile == null) {
            throw new UsageException("give a SOURCE, - for standard input, or --from-file FILE");
        }
        SourceOpener opener = common.opener();
        List<ManifestEntry> entries = new ArrayList<>();
        int files = jobs.value();
        int code;
        try (ProgressBar bar = problems.startProgress(0, ProgressBar.Unit.BYTES)) {
            FileCheck check = new DigestCheck(opener, common.limits(), f -> Expected.NOTHING, !compute, bar);
            // no bar of sources beside the bar of bytes, but warnings and errors about the list still reach stderr
            Output listing = new Output(new PrintStream(OutputStream.nullOutputStream()), err, false, common.debug,
                    true);
            selection.indexFiles = true;
            code = CheckRun.stream(sources, selection, opener, common.limits(), files, listing, err, check, r -> {
                if (r.status() != Status.VALID) {
                    problems.result(r, false, TextFormatter::statusLine);
                } else if (r.kind() != SourceResult.Kind.CHECKPOINT) {
                    entries.add(ManifestEntry.of(r));
                }
            });
        }
        out.print(ManifestFile.write(entries, "safetensors " + VersionInfo.version()));
        out.flush();
        return code;
    }
}
