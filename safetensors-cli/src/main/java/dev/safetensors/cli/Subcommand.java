package dev.safetensors.cli;

/** A {@code safetensors} subcommand: the table of what it accepts, and the work, once its arguments are parsed. */
interface Subcommand {
    /** @return the options and parameters; parsing the command line sets this command's fields through it */
    CommandSpec spec();

    /**
     * @return the exit code
     * @throws UsageException if the arguments, though each well formed, do not make a command it can run
     */
    int call();
}
