package dev.safetensors.spark;

import dev.safetensors.Location;
import dev.safetensors.core.Sources;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.ObjectWriterProvider;
import dev.safetensors.spi.UploadOptions;

import java.io.IOException;
import java.util.function.Predicate;

/**
 * Writes {@code s3://} (the Spark source's form of {@code s3a://}) with the settings Hadoop's S3A connector would
 * use for the bucket: the write side of {@link S3aSourceProvider}, choosing the client the same way, so a job reads
 * back through the client it wrote with. Only in the Spark source's registry ({@link SparkSources}). Thread-safe.
 */
final class S3aObjectWriter implements ObjectWriterProvider {

    @Override
    public boolean supports(Location location) {
        return location.scheme().equals("s3");
    }

    @Override
    public ObjectUpload create(Location object, UploadOptions options) throws IOException {
        return writer(object).create(object, options);
    }

    @Override
    public void delete(Location object) throws IOException {
        writer(object).delete(object);
    }

    @Override
    public int abortIncomplete(Location prefix, Predicate<Location> objects) throws IOException {
        return writer(prefix).abortIncomplete(prefix, objects);
    }

    /** @return the writer of the bucket's settings, or the installed one where the user set none */
    private static ObjectWriterProvider writer(Location location) throws IOException {
        S3aSettings settings = S3aSettings.of(HadoopFiles.conf(), location);
        return settings.isEmpty() ? Sources.registry().writer(location) : S3aClients.backend(settings).writer();
    }
}
