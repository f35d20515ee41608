package dev.safetensors.spark;

import dev.safetensors.Location;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.core.OutputFolder;

import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/** What a location string means to this source: Hadoop's S3 schemes are ours, a string without a scheme is a path. */
final class Locations {
    private Locations() {
    }

    /**
     * Hadoop's {@code s3a://} and {@code s3n://} name the same objects as {@code s3://}; they are read through the
     * library's S3 backend, not through Hadoop streams.
     */
    static String normalize(String location) {
        String lower = location.toLowerCase(Locale.ROOT);
        if (lower.startsWith("s3a://") || lower.startsWith("s3n://")) {
            return "s3://" + location.substring(6);
        }
        return location;
    }

    /**
     * The store prefix a write's output names, or empty for a local folder: core's rule
     * ({@link OutputFolder#store}), except that a Hadoop location needs no authority, as {@code hdfs:///out/}
     * names a folder of the default filesystem.
     *
     * @param output the output as the user wrote it (after {@code s3a://} became {@code s3://})
     * @return the prefix, ending in {@code /}, or empty for a local output
     * @throws IOException {@link ErrorCode#INVALID_SOURCE} for a URI that names no bucket, or has a query or
     *                     fragment
     */
    static Optional<Location> output(String output) throws IOException {
        Location at = Location.parse(output);
        if (at.uri().isPresent() && HadoopFiles.handles(at)) {
            HadoopSourceProvider.hadoopUri(at);
            return Optional.of(at.isFolder() ? at : Location.parse(at.text() + "/"));
        }
        return OutputFolder.store(output);
    }

    /** @return the local file a location names, or {@code null} when it is remote */
    static Path localPath(String location) {
        Location at = Location.parse(location);
        try {
            return at.isLocal() ? at.path() : null;
        } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
            return null;
        }
    }

    /**
     * Opens a location through the Spark source's registry ({@link SparkSources}: Hadoop's {@code fs.s3a.*} settings
     * for {@code s3://}, Hadoop's filesystems for their schemes), turning a string no source accepts into a coded
     * failure.
     */
    static RandomAccessSource open(String location) throws IOException {
        try {
            return SparkSources.registry().open(location);
        } catch (InvalidPathException e) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, "not a valid path: " + e.getMessage());
        }
    }
}
