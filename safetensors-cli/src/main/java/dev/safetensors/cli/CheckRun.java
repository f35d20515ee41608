package dev.safetensors.cli;

import dev.safetensors.Limits;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The shape every multi-source subcommand shares: expand the SOURCE arguments (shards, Hub repositories), examine
 * every file in parallel under a progress bar, print the results in argument order, and turn the worst verdict into
 * the exit code.
 */
final class CheckRun {
    private CheckRun() {
    }

    /**
     * @param arguments the SOURCE arguments
     * @param opener    opens index files
     * @param limits    the bounds on indexes and listings
     * @return the targets of every argument, in order (a Hub repository may hold several checkpoints)
     */
    static List<Target> expand(List<String> arguments, SourceOpener opener, Limits limits) {
        ShardExpander expander = new ShardExpander(opener, limits);
        List<Target> targets = new ArrayList<>(arguments.size());
        for (String a : arguments) {
            targets.addAll(expander.expand(a));
        }
        return targets;
    }

    /**
     * The header check of {@code inspect} and {@code validate} over the SOURCE arguments.
     *
     * @param sources the SOURCE arguments
     * @param common  the common options
     * @param jobs    files examined at once
     * @param out     stdout
     * @param err     stderr
     * @param tensors whether JSON results list tensors
     * @param text    how a result reads as text
     * @return the exit code
     */
    static int headerChecks(List<String> sources, CommonOptions common, int jobs, PrintStream out,
                            PrintStream err, boolean tensors, Function<SourceResult, String> text) {
        SourceOpener opener = common.opener();
        return run(expand(sources, opener, common.limits()), jobs, common.output(out, err),
                new HeaderCheck(opener, common.limits()), tensors, text);
    }

    /**
     * Runs a check over every file of the targets, with progress counted in sources.
     *
     * @param targets the expanded sources
     * @param jobs    files examined at once
     * @param output  where results go
     * @param check   the work per file
     * @param tensors whether JSON results list tensors
     * @param text    how a result reads as text
     * @return the exit code
     */
    static int run(List<Target> targets, int jobs, Output output, FileCheck check, boolean tensors,
                   Function<SourceResult, String> text) {
        int files = Batch.fileCount(targets);
        try (ProgressBar bar = output.startProgress(files, ProgressBar.Unit.SOURCES)) {
            Status worst = new Batch(jobs, () -> bar.advance(1)).run(targets, check,
                    r -> output.result(r, tensors, text));
            return worst.exitCode();
        }
    }
}
