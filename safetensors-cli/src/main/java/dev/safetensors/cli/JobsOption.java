package dev.safetensors.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code --jobs}: mixed only into the commands that examine many files at once (inspect, validate, verify, manifest),
 * so that {@code dump} and {@code reshard}, which copy one tensor after another, do not accept a flag they would
 * ignore.
 */
final class JobsOption {
    static final int MAX_JOBS = 256;

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--jobs", paramLabel = "N", description = "Sources (files and shards) examined in parallel;"
            + " default ${DEFAULT-VALUE}.")
    int jobs = 8;

    /**
     * @return the number of parallel jobs
     * @throws ParameterException if out of range
     */
    int value() {
        if (jobs < 1 || jobs > MAX_JOBS) {
            throw new ParameterException(spec.commandLine(), "--jobs must be between 1 and " + MAX_JOBS + ", was "
                    + jobs);
        }
        return jobs;
    }
}
