package dev.safetensors.spark;

import dev.safetensors.Location;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.core.Sources;

import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;

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

    /** @return the local file a location names, or {@code null} when it is remote */
    static Path localPath(String location) {
        Location at = Location.parse(location);
        try {
            return at.isLocal() ? at.path() : null;
        } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
            return null;
        }
    }

    /** Opens a location with the library's sources, turning a string no source accepts into a coded failure. */
    static RandomAccessSource open(String location) throws IOException {
        try {
            if (HadoopFiles.handles(location)) {
                return HadoopFiles.open(location);
            }
            return Sources.open(location);
        } catch (InvalidPathException e) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, "not a valid path: " + e.getMessage());
        }
    }
}
