package dev.safetensors.cli.arguments;

/**
 * {@code --jobs}: mixed only into the commands that examine many files at once (inspect, validate, verify, manifest),
 * so that {@code dump} and {@code reshard}, which copy one tensor after another, do not accept a flag they would
 * ignore.
 */
public final class JobsOption {
    /** The most jobs {@code --jobs} accepts: {@value}. */
    public static final int MAX_JOBS = 256;

    static final int DEFAULT_JOBS = 8;

    int jobs = DEFAULT_JOBS;

    /** @param spec the command that takes {@code --jobs} */
    public void declare(CommandSpec spec) {
        spec.option(OptionSpec.value("--jobs", "N", "Sources (files and shards) examined in parallel, so at most N"
                + " header requests at once; default "
                + DEFAULT_JOBS + ".", v -> jobs = OptionValue.integer(v)));
    }

    /**
     * @return the number of parallel jobs
     * @throws UsageException if out of range
     */
    public int value() {
        if (jobs < 1 || jobs > MAX_JOBS) {
            throw new UsageException("--jobs must be between 1 and " + MAX_JOBS + ", was "
                    + jobs);
        }
        return jobs;
    }
}
