package dev.safetensors.spark;

import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.core.Sources;

import java.io.IOException;

/**
 * Reads and lists {@code s3://} (the Spark source's form of {@code s3a://} and {@code s3n://}) with the settings
 * Hadoop's S3A connector would use for the bucket ({@link S3aSettings}, from the configuration installed in this JVM,
 * {@link HadoopFiles#conf()}): a bucket the user configured through {@code fs.s3a.*} is read with a client of those
 * settings ({@link S3aClients}), any other by the installed S3 backend, as outside Spark. Only in the Spark source's
 * registry ({@link SparkSources}), never installed. Thread-safe.
 */
final class S3aSourceProvider implements RandomAccessSourceProvider {

    @Override
    public boolean supports(Location location) {
        return location.scheme().equals("s3");
    }

    @Override
    public RandomAccessSource open(Location location) throws IOException {
        S3aSettings settings = S3aSettings.of(HadoopFiles.conf(), location);
        return settings.isEmpty() ? Sources.registry().open(location)
                : S3aClients.backend(settings).reader().open(location);
    }

    @Override
    public Listing list(Location prefix, ListOptions options) throws IOException {
        S3aSettings settings = S3aSettings.of(HadoopFiles.conf(), prefix);
        return settings.isEmpty() ? Sources.registry().list(prefix, options)
                : S3aClients.backend(settings).reader().list(prefix, options);
    }
}
