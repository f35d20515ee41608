package dev.safetensors.spark;

import dev.safetensors.Location;
import dev.safetensors.core.Sources;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.ObjectWriterProvider;
import dev.safetensors.spi.UploadOptions;

import java.io.IOException;
import java.util.function.Predicate;

/**
 * The writers of the default registry ({@link Sources#registry()}), as one writer for another registry to ask after
 * its own: so the Spark source's registry shares the installed backends' clients instead of building second ones.
 */
final class InstalledWriters implements ObjectWriterProvider {

    @Override
    public boolean supports(Location location) {
        try {
            Sources.registry().writer(location);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public ObjectUpload create(Location object, UploadOptions options) throws IOException {
        return Sources.registry().writer(object).create(object, options);
    }

    @Override
    public void delete(Location object) throws IOException {
        Sources.registry().writer(object).delete(object);
    }

    @Override
    public int abortIncomplete(Location prefix, Predicate<Location> objects) throws IOException {
        return Sources.registry().writer(prefix).abortIncomplete(prefix, objects);
    }
}
