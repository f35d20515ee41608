package dev.safetensors.cli.backends;

import dev.safetensors.Location;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.ObjectWriterProvider;
import dev.safetensors.spi.UploadOptions;

import java.io.IOException;
import java.util.Objects;

/**
 * The write side of a {@link BackendProvider}: it answers {@link #supports} from the schemes the backend declares
 * until the backend is loaded, and loads it (once, shared with the reads) on the first write, so an output location
 * such as {@code reshard --out s3://...} brings in the S3 backend and only it. Thread-safe.
 */
final class BackendWriter implements ObjectWriterProvider {
    private final BackendProvider backend;

    /** @param backend the lazily loaded backend whose writers serve */
    BackendWriter(BackendProvider backend) {
        this.backend = Objects.requireNonNull(backend, "backend");
    }

    @Override
    public boolean supports(Location location) {
        return backend.writes(location);
    }

    @Override
    public ObjectUpload create(Location object, UploadOptions options) throws IOException {
        return backend.writer(object).create(object, options);
    }

    @Override
    public void delete(Location object) throws IOException {
        backend.writer(object).delete(object);
    }

    @Override
    public int abortIncomplete(Location prefix, java.util.function.Predicate<Location> objects) throws IOException {
        return backend.writer(prefix).abortIncomplete(prefix, objects);
    }
}
