package dev.safetensors.cli.commands;

import dev.safetensors.cli.arguments.CommandSpec;
import dev.safetensors.cli.arguments.UsageException;

/** A {@code safetensors} subcommand: the table of what it accepts, and the work, once its arguments are parsed. */
public interface Subcommand {
    /** @return the options and parameters; parsing the command line sets this command's fields through it */
    CommandSpec spec();

    /**
     * @return the exit code
     * @throws UsageException if the arguments, though each well formed, do not make a command it can run
     */
    int call();
}
