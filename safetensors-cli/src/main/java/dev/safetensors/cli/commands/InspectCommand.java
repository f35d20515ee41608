package dev.safetensors.cli.commands;

import dev.safetensors.Location;
import java.util.ArrayList;
import java.util.List;
import dev.safetensors.cli.arguments.CommandSpec;
import dev.safetensors.cli.arguments.CommonOptions;
import dev.safetensors.cli.arguments.JobsOption;
import dev.safetensors.cli.arguments.OptionSpec;
import dev.safetensors.cli.arguments.PositionalSpec;
import dev.safetensors.cli.arguments.SourceArguments;
import dev.safetensors.cli.arguments.UsageException;
import dev.safetensors.cli.checks.CheckRun;
import dev.safetensors.cli.checks.HubInspection;
import dev.safetensors.cli.checks.HubLocation;
import dev.safetensors.cli.output.TextFormatter;
import dev.safetensors.cli.results.SourceResult;
import dev.safetensors.cli.results.Status;

/** {@code safetensors inspect}: what each source holds, read from its header alone. */
public final class InspectCommand extends Subcommand {

    final CommonOptions common = new CommonOptions();

    final JobsOption jobs = new JobsOption();

    final SourceArguments selection = new SourceArguments();

    boolean tensors;

    String folder;

    final List<String> sources = new ArrayList<>();

    @Override
    public CommandSpec spec() {
        CommandSpec spec = new CommandSpec("inspect", List.of("Summarize what each source holds, reading only its"
                + " header: tensors, parameters and bytes by"
                + " dtype, header and payload sizes, 8-byte alignment, metadata, and what the read cost.",
                "A *.safetensors.index.json is expanded into its shards (one line each) and one summary for the whole"
                        + " checkpoint.",
                "A Hub repository hf://[datasets/|spaces/]NAMESPACE/REPO[@REVISION] is read in one call: one"
                        + " summary per"
                        + " checkpoint it holds (the root's, and each diffusers component's, or the one --path"
                        + " names),"
                        + " with parameters counted from config.json's quantization_config when it declares one."),
                List.of("", "Examples:",
                "  safetensors inspect model.safetensors",
                "  safetensors inspect --tensors model.safetensors",
                "  safetensors inspect hf://openai-community/gpt2",
                "  safetensors inspect --path unet hf://acme/diffusion-pipeline@v1.0",
                "  safetensors inspect --json s3://bucket/models/model.safetensors.index.json"));
        common.declare(spec);
        jobs.declare(spec);
        selection.declare(spec);
        spec.option(OptionSpec.flag("--tensors", "Also list every tensor: name, dtype, shape and bytes.",
                () -> tensors = true));
        spec.option(OptionSpec.value("--path", "FOLDER", "For a Hub repository, the folder of the one checkpoint"
                + " to inspect (e.g. transformer, unet, text_encoder); the root is \"\".",
                v -> folder = v));
        spec.positional(new PositionalSpec("SOURCE", 0, PositionalSpec.MANY, "A file (a local path, or an s3, gs,"
                + " az, abfss, https or hf URL), a *.safetensors.index.json, or a Hub repository"
                + " hf://[datasets/|spaces/]NAMESPACE/REPO[@REVISION][/FOLDER], a folder or prefix ending in /, or -"
                + " for one location a line on standard input.",
                v -> sources.add(v)));
        return spec;
    }

    @Override
    public int call() {
        if (sources.isEmpty() && selection.fromFile == null) {
            throw new UsageException("give a SOURCE, - for standard input, or --from-file FILE");
        }
        int code = Status.VALID.exitCode();
        List<String> files = new ArrayList<>();
        for (String source : sources) {
            if (!HubLocation.isRepository(Location.parse(source))) {
                files.add(source);
                continue;
            }
            code = Math.max(code, checkFiles(files, false));
            code = Math.max(code, HubInspection.run(source, folder, common, jobs.value(), tensors,
                    common.output(out, err), this::text));
        }
        return common.finish("inspect", Math.max(code, checkFiles(files, true)));
    }

    /**
     * Checks the files, indexes, folders and prefixes gathered so far, in order, and forgets them; the last call
     * also reads the {@code --from-file} list.
     */
    private int checkFiles(List<String> files, boolean last) {
        if (files.isEmpty() && !(last && selection.fromFile != null)) {
            return Status.VALID.exitCode();
        }
        SourceArguments these = last ? selection : selection.withoutList();
        int code = CheckRun.headerChecks(List.copyOf(files), these, common, jobs.value(), out, err, tensors,
                this::text);
        files.clear();
        return code;
    }

    private String text(SourceResult r) {
        boolean block = r.status() == Status.VALID && (r.kind() != SourceResult.Kind.SHARD || tensors);
        return block ? TextFormatter.inspectBlock(r, tensors) : TextFormatter.statusLine(r);
    }
}
