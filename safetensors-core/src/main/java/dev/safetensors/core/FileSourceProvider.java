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
import java.nio.file.Path;
import dev.safetensors.core.internal.listing.FolderListing;

/** Opens local locations (paths and {@code file:} URIs) as {@link FileSource}s and lists local folders. Registered through {@link java.util.ServiceLoader}. */
public final class FileSourceProvider implements RandomAccessSourceProvider {

    /** Creates the provider; {@link java.util.ServiceLoader} calls this. */
    public FileSourceProvider() {
    }

    /** @return whether the location is local: a plain path or a {@code file:} URI */
    @Override
    public boolean supports(Location location) {
        return location.isLocal();
    }

    /**
     * @throws IOException an {@link InvalidLocationException} with {@link ErrorCode#INVALID_SOURCE} for a location
     *                     that is not local or that the default file system cannot name; the file's failure else
     */
    @Override
    public RandomAccessSource open(Location location) throws IOException {
        return FileSource.open(localPath(location, "not a local file"));
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
        Path folder = localPath(prefix, "not a local folder");
        return FolderListing.open(folder, options);
    }

    /**
     * @param location a location
     * @param what     what it is not, for the message
     * @return its local path
     * @throws InvalidLocationException {@link ErrorCode#INVALID_SOURCE} when it is not local or the default file
     *                                  system cannot name it
     */
    static Path localPath(Location location, String what) throws InvalidLocationException {
        try {
            return location.path();
        } catch (IllegalStateException | IllegalArgumentException
                 | java.nio.file.FileSystemNotFoundException e) {
            InvalidLocationException invalid = new InvalidLocationException(ErrorCode.INVALID_SOURCE,
                    location.display() + ": " + what);
            invalid.initCause(e);
            throw invalid;
        }
    }
}
