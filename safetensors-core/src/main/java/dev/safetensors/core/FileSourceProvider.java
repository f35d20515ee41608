package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;

/** Opens {@code file:} URIs as {@link FileSource}s. Registered through {@link java.util.ServiceLoader}. */
public final class FileSourceProvider implements RandomAccessSourceProvider {

    /** Creates the provider; {@link java.util.ServiceLoader} calls this. */
    public FileSourceProvider() {
    }

    @Override
    public boolean supports(URI uri) {
        return "file".equalsIgnoreCase(uri.getScheme());
    }

    @Override
    public RandomAccessSource open(URI uri) throws IOException {
        Path path;
        try {
            path = Path.of(uri);
        } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
            InvalidLocationException invalid = new InvalidLocationException(ErrorCode.INVALID_SOURCE,
                    uri.getScheme() + ":" + uri.getRawPath() + ": not a local file URI");
            invalid.initCause(e);
            throw invalid;
        }
        return FileSource.open(path);
    }
}
