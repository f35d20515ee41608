package dev.safetensors.cli.checks;

import dev.safetensors.Limits;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import dev.safetensors.cli.arguments.CommonOptions;
import dev.safetensors.cli.arguments.SourceArguments;
import dev.safetensors.cli.backends.SourceOpener;
import dev.safetensors.cli.output.Output;
import dev.safetensors.cli.output.ProgressBar;
import dev.safetensors.cli.output.RunSummary;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.SourceResult;
import dev.safetensors.cli.results.Status;

/**
 * The shape every multi-source subcommand shares: expand the SOURCE arguments (shards, Hub repositories), examine
 * every file in parallel under a progress bar, print the results in argument order, and turn the worst verdict into
 * the exit code.
 */
public final class CheckRun {
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
    public static int headerChecks(List<String> sources, CommonOptions common, int jobs, PrintStream out,
                                   PrintStream err, boolean tensors, Function<SourceResult, String> text) {
        SourceOpener opener = common.opener();
        return run(expand(sources, opener, common.limits()), jobs, common.output(out, err),
                new HeaderCheck(opener, common.limits()), tensors, text);
    }

    /**
     * The header check over the SOURCE arguments, folders and prefixes listed and lists of sources read as they are
     * consumed: results stream in order, and when the run can expand into many results a summary closes it on
     * stderr (under {@code --json}, the subcommand's {@link CommonOptions#finish} closes stdout with its object too).
     *
     * @param sources   the SOURCE arguments
     * @param selection {@code --recursive}, {@code --include}, {@code --exclude}, {@code --from-file}
     * @param common    the common options
     * @param jobs      files examined at once
     * @param out       stdout
     * @param err       stderr
     * @param tensors   whether JSON results list tensors
     * @param text      how a result reads as text
     * @return the exit code
     */
    public static int headerChecks(List<String> sources, SourceArguments selection, CommonOptions common, int jobs,
                            PrintStream out, PrintStream err, boolean tensors, Function<SourceResult, String> text) {
        SourceOpener opener = common.opener();
        Output output = common.output(out, err);
        return stream(sources, selection, opener, common.limits(), jobs, output, err,
                new HeaderCheck(opener, common.limits()),
                r -> output.result(r, tensors, text));
    }

    /**
     * Runs a check over the targets the sources expand into, lazily, printing each result through {@code sink}.
     *
     * @param sources   the SOURCE arguments
     * @param selection the selection options
     * @param opener    opens and lists
     * @param limits    the bounds on indexes and listings
     * @param jobs      files examined at once
     * @param output    where the progress bar goes
     * @param err       stderr, for the summary
     * @param check     the work per file
     * @param sink      prints a result
     * @return the exit code: the worst status seen
     */
    public static int stream(List<String> sources, SourceArguments selection, SourceOpener opener, Limits limits,
                             int jobs, Output output, PrintStream err, FileCheck check,
                             java.util.function.Consumer<SourceResult> sink) {
        return stream(sources, selection, opener, limits, jobs, output, err, check, sink, t -> List.of());
    }

    /**
     * Runs a check over the targets the sources expand into, lazily, printing each result through {@code sink}, then
     * the results {@code closing} finds once every target was checked (what a manifest named and no listed location
     * held), counted in the summary and the exit code like the others.
     *
     * @param sources   the SOURCE arguments
     * @param selection the selection options
     * @param opener    opens and lists
     * @param limits    the bounds on indexes and listings
     * @param jobs      files examined at once
     * @param output    where the progress bar goes
     * @param err       stderr, for the summary
     * @param check     the work per file
     * @param sink      prints a result
     * @param closing   the results to add after the last target, given the targets as they ended
     * @return the exit code: the worst status seen
     */
    public static int stream(List<String> sources, SourceArguments selection, SourceOpener opener, Limits limits,
                             int jobs, Output output, PrintStream err, FileCheck check,
                             java.util.function.Consumer<SourceResult> sink,
                             Function<TargetStream, List<SourceResult>> closing) {
        boolean many = selection.readsList(sources);
        TargetStream targets = new TargetStream(selection.locations(sources, System.in), selection, opener,
                limits).warnings(w -> output.error("warning: " + w, null));
        RunSummary summary = new RunSummary();
        Status worst;
        try (ProgressBar bar = output.startProgress(0, ProgressBar.Unit.SOURCES)) {
            java.util.Iterator<Target> counted = new java.util.Iterator<>() {
                @Override
                public boolean hasNext() {
                    return targets.hasNext();
                }

                @Override
                public Target next() {
                    Target t = targets.next();
                    bar.grow(t instanceof Target.Checkpoint c ? c.shards().size() : 1);
                    return t;
                }
            };
            worst = new Batch(jobs, () -> bar.advance(1)).run(counted, check, r -> {
                summary.count(r);
                sink.accept(r);
            });
            for (SourceResult r : closing.apply(targets)) {
                summary.count(r);
                sink.accept(r);
                worst = worst.worse(r.status());
            }
            if (summary.total() == 0 && !selection.allowEmpty) {
                SourceResult none = selectedNothing(sources, selection);
                summary.count(none);
                sink.accept(none);
                worst = worst.worse(none.status());
            }
        } catch (java.io.UncheckedIOException e) {
            output.error("cannot read the list of sources: " + Failure.from(e.getCause(), "").message(), e);
            return Status.ERROR.exitCode();
        }
        output.listed(targets.listingRequests(), targets.notFollowed(), targets.firstNotFollowed());
        if (many || targets.listedAny()) {
            // on stderr in both modes: under --json the summary object closes stdout as well
            summary.listed(targets.listingRequests(), targets.notFollowed(), targets.firstNotFollowed());
            summary.skippedPrefixes(targets.skippedPrefixes());
            summary.print(err);
        }
        return worst.exitCode();
    }

    /**
     * The result of a run that selected no file at all: an empty folder, a mistyped prefix, an empty list. It is
     * {@link dev.safetensors.ErrorCode#NOT_FOUND} naming what was searched, as {@code aws s3 ls} of a missing prefix
     * fails, so a gate over the wrong location never passes; {@code --allow-empty} accepts it.
     */
    private static SourceResult selectedNothing(List<String> sources, SourceArguments selection) {
        List<String> searched = new ArrayList<>();
        for (String s : sources) {
            searched.add(s.equals("-") ? "standard input" : dev.safetensors.Location.parse(s).display());
        }
        if (selection.fromFile != null) {
            searched.add(selection.fromFile.toString());
        }
        String where = searched.isEmpty() ? "the list" : String.join(", ", searched);
        String globs = selection.include.isEmpty() ? "*.safetensors and *.safetensors.index.json"
                : String.join(", ", selection.include);
        String message = "selected no file (searched for " + globs
                + (selection.recursive ? ", subfolders included" : ", one level; --recursive lists subfolders")
                + "); --allow-empty accepts an empty selection";
        return SourceResult.builder(where, SourceResult.Kind.FILE)
                .fail(Failure.of(Status.ERROR, dev.safetensors.ErrorCode.NOT_FOUND, message, null)).build();
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
