package dev.safetensors.cli.commands;

import dev.safetensors.cli.arguments.CommandSpec;
import dev.safetensors.cli.arguments.UsageException;

import java.io.PrintStream;
import java.util.Objects;

/**
 * A {@code safetensors} subcommand: the table of what it accepts, and the work, once its arguments are parsed. A
 * command is made for one run: built with no arguments, given the run's streams ({@link #streams}), its fields set
 * by parsing the command line through its {@link #spec()}, then {@link #call()}ed once.
 */
public abstract class Subcommand {
    /** Standard output: results, and the data a command writes there. */
    protected PrintStream out;
    /** Standard error: messages, progress and the text summary. */
    protected PrintStream err;

    /** For the subcommands of this package only. */
    Subcommand() {
    }

    /**
     * @param out stdout
     * @param err stderr
     * @return this command, writing to these streams
     */
    public final Subcommand streams(PrintStream out, PrintStream err) {
        this.out = Objects.requireNonNull(out, "out");
        this.err = Objects.requireNonNull(err, "err");
        return this;
    }

    /** @return the options and parameters; parsing the command line sets this command's fields through it */
    public abstract CommandSpec spec();

    /**
     * @return the exit code
     * @throws UsageException if the arguments, though each well formed, do not make a command it can run
     */
    public abstract int call();
}
