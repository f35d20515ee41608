package dev.safetensors.cli.output;

import java.io.PrintStream;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.SourceResult;
import dev.safetensors.cli.results.Status;

/**
 * Where results go. Results (valid, invalid, unsupported) go to stdout; a source that could not be read at all is
 * an error and goes to stderr, except in {@code --json} mode, where every result is one JSON line on stdout, and
 * {@link #close} ends the run with a {@code summary} object counting them. With {@code --debug}, the stack trace
 * behind a failure follows on stderr. Lines are flushed one by one so that stdout and stderr interleave in order, and
 * printed above the progress bar, which {@code --quiet} turns off.
 */
public final class Output {
    private final PrintStream out;
    private final PrintStream err;
    private final boolean json;
    private final boolean debug;
    private final boolean quiet;
    private final BooleanSupplier terminal;
    private final RunSummary run = new RunSummary();
    private ProgressBar progress = ProgressBar.disabled();

    /**
     * @param out   stdout
     * @param err   stderr
     * @param json  whether results are JSON Lines
     * @param debug whether to print stack traces
     */
    public Output(PrintStream out, PrintStream err, boolean json, boolean debug) {
        this(out, err, json, debug, false);
    }

    /**
     * @param out   stdout
     * @param err   stderr
     * @param json  whether results are JSON Lines
     * @param debug whether to print stack traces
     * @param quiet whether to draw no progress bar, even on a terminal
     */
    public Output(PrintStream out, PrintStream err, boolean json, boolean debug, boolean quiet) {
        this(out, err, json, debug, quiet, Terminal::stderr);
    }

    /**
     * @param out      stdout
     * @param err      stderr
     * @param json     whether results are JSON Lines
     * @param debug    whether to print stack traces
     * @param quiet    whether to draw no progress bar, even on a terminal
     * @param terminal whether stderr is a terminal, asked when a bar may be drawn
     */
    public Output(PrintStream out, PrintStream err, boolean json, boolean debug, boolean quiet,
                  BooleanSupplier terminal) {
        this.terminal = terminal;
        this.out = out;
        this.err = err;
        this.json = json;
        this.debug = debug;
        this.quiet = quiet;
    }

    /** @return an output that prints nothing and draws no progress bar, for a run whose caller prints itself */
    static Output quiet() {
        PrintStream nowhere = new PrintStream(java.io.OutputStream.nullOutputStream());
        return new Output(nowhere, nowhere, false, false);
    }

    /**
     * Starts a progress bar on stderr, drawn only when stderr is a terminal and {@code --quiet} was not given; results
     * are printed above it.
     *
     * @param total how much work there is (it may grow)
     * @param unit  what is counted
     * @return the bar; close it when the work is done
     */
    public ProgressBar startProgress(long total, ProgressBar.Unit unit) {
        progress = quiet ? ProgressBar.disabled() : ProgressBar.start(err, total, unit, terminal.getAsBoolean());
        return progress;
    }

    /**
     * @param r       a result
     * @param tensors whether JSON output lists the tensors
     * @param text    how to render it as text
     */
    public void result(SourceResult r, boolean tensors, Function<SourceResult, String> text) {
        run.count(r);
        progress.printAbove(() -> {
            if (json) {
                out.println(JsonFormatter.line(r, tensors));
                out.flush();
            } else if (r.status() == Status.ERROR) {
                err.println(text.apply(r));
                err.flush();
            } else {
                out.println(text.apply(r));
                out.flush();
            }
            if (debug) {
                r.failure().map(Failure::cause).ifPresent(e -> {
                    err.print(Sanitized.stackTrace(e));
                    err.flush();
                });
            }
        });
    }

    /**
     * @param out stdout
     * @param err stderr
     * @return whether this output writes to these streams
     */
    public boolean writesTo(PrintStream out, PrintStream err) {
        return this.out == out && this.err == err;
    }

    /**
     * Adds what listing folders and prefixes cost and skipped to the run's summary.
     *
     * @param requests    the requests spent listing
     * @param notFollowed the links to folders and loops the listings did not follow
     * @param first       the first of them, as shown, or {@code null}
     */
    public void listed(long requests, long notFollowed, String first) {
        run.listed(requests, notFollowed, first);
    }

    /**
     * Ends the run: under {@code --json}, the {@code summary} object of every result printed, as the last line on
     * stdout; in text, nothing (the text summary is the caller's, on stderr, where it has one).
     *
     * @param command  the subcommand
     * @param exitCode the process's exit status
     * @return {@code exitCode}
     */
    public int close(String command, int exitCode) {
        if (json) {
            out.println(run.json(command, exitCode));
            out.flush();
        }
        return exitCode;
    }

    /**
     * Reports an error that is not about one source's content (an output file that cannot be written).
     *
     * @param message the line to print after {@code safetensors: }
     * @param cause   printed with {@code --debug}; may be {@code null}
     */
    public void error(String message, Throwable cause) {
        progress.printAbove(() -> {
            err.println("safetensors: " + Sanitized.line(message, 2000));
            if (debug && cause != null) {
                err.print(Sanitized.stackTrace(cause));
            }
            err.flush();
        });
    }
}
