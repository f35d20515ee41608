package dev.safetensors;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One entry of a {@link Listing}: an object or file with its size and version, or something that is not a regular
 * object, reported with its {@link Kind} so that nothing a folder holds disappears silently.
 *
 * @param location     where it is, openable through the registry that listed it
 * @param size         its size in bytes; {@code -1} when unknown or not a regular object
 * @param version      the object's version as the storage names it (an S3 ETag, a GCS generation, a Hub blob id),
 *                     or empty
 * @param lastModified when it was last written, or empty when the storage does not say
 * @param kind         what it is
 */
public record ListEntry(Location location, long size, Optional<String> version, Optional<Instant> lastModified,
                        Kind kind) {
    /** What an entry is. Only {@link #FILE} entries can be opened as sources. */
    public enum Kind {
        /** A regular file or object. */
        FILE,
        /** A folder or a common prefix, reported by one-level listings (and a folder whose name looks like a file). */
        FOLDER,
        /** A named pipe: opening it would block. */
        FIFO,
        /** A character or block device, or a socket. */
        DEVICE,
        /** A symbolic link whose target does not exist. */
        DANGLING_LINK,
        /** A symbolic link to a folder that contains it: followed, the walk would never end. */
        LOOP,
        /** A folder that could not be read: the file system failed while listing it, or it went during the walk. */
        UNREADABLE,
        /** A folder whose listing the file system refused (its permissions): what it holds was not listed. */
        DENIED,
        /**
         * A symbolic link to a folder met by a recursive walk, which does not follow it: a walk never leaves its root
         * through a link, and never lists a folder twice (a folder inside the root is listed under its own name).
         */
        FOLDER_LINK,
        /**
         * A name the storage listed that no request can name exactly (a NUL or a lone surrogate, which the encoding
         * of a request would drop or turn into another name; on Azure, a {@code .} or {@code ..} segment, which the
         * service resolves): reported, never opened.
         */
        INVALID_NAME
    }

    /**
     * Checks that no component is {@code null}.
     *
     * @param location where it is
     * @param size its size, or {@code -1}
     * @param version its version
     * @param lastModified when it was written
     * @param kind what it is
     */
    public ListEntry {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(lastModified, "lastModified");
        Objects.requireNonNull(kind, "kind");
    }

    /**
     * @param location where it is
     * @param size its size in bytes
     * @param version its version, or {@code null}
     * @param lastModified when it was written, or {@code null}
     * @return a regular file entry
     */
    public static ListEntry file(Location location, long size, String version, Instant lastModified) {
        return new ListEntry(location, size, Optional.ofNullable(version), Optional.ofNullable(lastModified),
                Kind.FILE);
    }

    /**
     * @param location where it is
     * @param kind what it is, not {@link Kind#FILE}
     * @return an entry that is not a regular object
     */
    public static ListEntry special(Location location, Kind kind) {
        return new ListEntry(location, -1, Optional.empty(), Optional.empty(), kind);
    }

    /** @return whether this is a regular file or object */
    public boolean isFile() {
        return kind == Kind.FILE;
    }
}
