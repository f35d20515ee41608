package dev.safetensors.cli;

import dev.safetensors.core.ReadOptions;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code --parallel} and {@code --part-size}: how {@code dump} and {@code reshard} fetch a remote tensor's bytes. */
final class RemoteReadOptions {
    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--parallel", paramLabel = "N", description = "Parts of a remote tensor fetched at once, 1 to "
            + ReadOptions.MAX_PARALLELISM + "; 1 reads it as one stream (default ${DEFAULT-VALUE}).")
    int parallel = ReadOptions.DEFAULT_PARALLELISM;

    @Option(names = "--part-size", paramLabel = "BYTES", description = "Bytes per part of a remote tensor, a multiple"
            + " of 8 from " + ReadOptions.MIN_PART_SIZE_BYTES + " (default ${DEFAULT-VALUE}).")
    int partSize = ReadOptions.DEFAULT_PART_SIZE_BYTES;

    /**
     * @return the read options these flags give
     * @throws ParameterException naming the flag whose value is out of range
     */
    ReadOptions readOptions() {
        try {
            return ReadOptions.builder().parallelism(parallel).partSizeBytes(partSize).build();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), (e.getMessage().startsWith("parallelism")
                    ? "--parallel: " : "--part-size: ") + e.getMessage());
        }
    }
}
