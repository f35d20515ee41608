package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import dev.safetensors.core.internal.listing.FolderListing;

/** Opens {@code file:} URIs as {@link FileSource}s and lists local folders. Registered through {@link java.util.ServiceLoader}. */
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

    /**
     * Lists a local folder lazily: symbolic links followed but never in a loop, subfolders reported as
     * {@link ListEntry.Kind#FOLDER}, FIFOs, devices, dangling links and unreadable subfolders reported with their
     * kind. Costs no request.
     *
     * @throws IOException {@link ErrorCode#NOT_FOUND} for a missing folder, {@link ErrorCode#NOT_A_FILE} for a file,
     *                     {@link ErrorCode#INVALID_SOURCE} for a location that is not local
     */
    @Override
    public Listing list(Location prefix, ListOptions options) throws IOException {
        Path folder;
        try {
            folder = prefix.path();
        } catch (IllegalStateException | IllegalArgumentException
                 | java.nio.file.FileSystemNotFoundException e) {
            InvalidLocationException invalid = new InvalidLocationException(ErrorCode.INVALID_SOURCE,
                    prefix.display() + ": not a local folder");
            invalid.initCause(e);
            throw invalid;
        }
        return FolderListing.open(folder, options);
    }
}
