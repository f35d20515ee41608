package dev.safetensors.cli.arguments;

import dev.safetensors.core.ReadOptions;
import dev.safetensors.spi.UploadOptions;
import dev.safetensors.cli.output.Sanitized;

/**
 * {@code --parallel} and {@code --part-size}: how {@code dump} and {@code reshard} fetch a remote tensor's bytes, and
 * how {@code reshard} uploads to a store (the same two numbers: parts in flight, and bytes per part).
 */
public final class RemoteReadOptions {
    int parallel = ReadOptions.DEFAULT_PARALLELISM;
    int partSize = ReadOptions.DEFAULT_PART_SIZE_BYTES;

    /** @param spec the command that fetches remote tensors */
    public void declare(CommandSpec spec) {
        spec.option(OptionSpec.value("--parallel", "N", "Parts of a remote tensor fetched (or of an object uploaded)"
                        + " at once, 1 to "
                        + ReadOptions.MAX_PARALLELISM + "; 1 reads it as one stream (default "
                        + ReadOptions.DEFAULT_PARALLELISM + ").", v -> parallel = OptionValue.integer(v)))
                .option(OptionSpec.value("--part-size", "SIZE", "Bytes per part of a remote tensor, in bytes or with"
                        + " a unit (8MiB), a multiple of 8 from " + ReadOptions.MIN_PART_SIZE_BYTES + "; an upload's"
                        + " parts from 5MiB (default "
                        + ReadOptions.DEFAULT_PART_SIZE_BYTES + ", 8MiB).", v -> partSize = partSize(v)));
    }

    /** A part is one buffer: a size in bytes or with a unit, at most what an array holds. */
    private static int partSize(String text) {
        long bytes = ByteSize.parseBytes(text);
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("'" + Sanitized.line(text, 40) + "' is more than a part can hold ("
                    + Integer.MAX_VALUE + " bytes)");
        }
        return (int) bytes;
    }

    /**
     * @return the read options these flags give
     * @throws UsageException naming the flag whose value is out of range
     */
    public ReadOptions readOptions() {
        ReadOptions.Builder builder = ReadOptions.builder();
        try {
            builder.parallelism(parallel);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--parallel: " + e.getMessage());
        }
        try {
            builder.partSizeBytes(partSize);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--part-size: " + e.getMessage());
        }
        return builder.build();
    }

    /**
     * @return the upload options these flags give: parts of {@code --part-size}, {@code --parallel} at once
     * @throws UsageException naming the flag whose value an upload cannot take (a part below 5 MiB, the smallest
     *                        part S3 accepts)
     */
    public UploadOptions uploadOptions() {
        if (partSize < UploadOptions.MIN_PART_SIZE || partSize > UploadOptions.MAX_PART_SIZE) {
            throw new UsageException("--part-size: an upload's parts are from " + UploadOptions.MIN_PART_SIZE
                    + " (5MiB) to " + UploadOptions.MAX_PART_SIZE + " (512MiB) bytes, was " + partSize);
        }
        try {
            return UploadOptions.DEFAULT.withParts(partSize, parallel);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--parallel: " + e.getMessage());
        }
    }
}
