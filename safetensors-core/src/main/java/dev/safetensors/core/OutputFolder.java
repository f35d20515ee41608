package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.Location;
import dev.safetensors.StorageException;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The folder a multi-file write goes into: named by a local location only ({@link #local}), created when missing,
 * removed again if the write fails.
 */
public final class OutputFolder {
    private OutputFolder() {
    }

    /**
     * The store prefix an output location names, when it names one: a URI with a scheme other than {@code file:}
     * ({@code s3://bkt/out/}, {@code gs://}, {@code az://}), for a writer that publishes to stores
     * ({@link ShardedWriter#writeTo(Location, SourceRegistry, dev.safetensors.spi.UploadOptions)}); whether a
     * backend writes that scheme is the registry's to say.
     *
     * @param location the output location as written
     * @return the prefix, always ending in {@code /}; empty for a local path or a {@code file:} URI
     * @throws InvalidLocationException {@link ErrorCode#INVALID_SOURCE} for a text written as a URI that does not
     *                                  parse, a URI that names no bucket or container, or one with a query or
     *                                  fragment
     */
    public static java.util.Optional<Location> store(String location) throws InvalidLocationException {
        Location parsed = Location.parse(location);
        if (parsed.uri().isEmpty()) {
            if (parsed.looksLikeUri()) {
                String scheme = location.substring(0, location.indexOf(':')).toLowerCase(java.util.Locale.ROOT);
                throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, "output " + scheme + "://... is not a"
                        + " valid URI (percent-encode spaces), nor taken for a path");
            }
            return java.util.Optional.empty();
        }
        if (parsed.scheme().equals("file")) {
            return java.util.Optional.empty();
        }
        if (parsed.uri().get().getRawAuthority() == null) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, "output " + parsed.display()
                    + " names no bucket or container");
        }
        if (parsed.uri().get().getRawQuery() != null || parsed.uri().get().getRawFragment() != null) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, "output " + parsed.display()
                    + " has a query or fragment: an output prefix takes neither");
        }
        return java.util.Optional.of(parsed.isFolder() ? parsed : Location.parse(parsed.text() + "/"));
    }

    /**
     * The local folder an output location names, checked before anything is read or created. A location with a
     * scheme ({@code s3://}, {@code gs://}, {@code az://}, {@code hf://}, {@code https://}, any {@code scheme://},
     * whether or not it parses as a URI) is never taken for a local path, so no folder named {@code s3:} is ever
     * made: writes go to local folders only, for now. A {@code file:} URI names its local path.
     *
     * @param location the output location as written, such as a command's {@code --out} value
     * @return the local path it names
     * @throws InvalidLocationException {@link ErrorCode#UNSUPPORTED_SCHEME} for a location with any other scheme;
     *                                  {@link ErrorCode#INVALID_SOURCE} for a malformed {@code file:} URI or a text
     *                                  that names no local path
     */
    public static Path local(String location) throws InvalidLocationException {
        Location parsed = Location.parse(location);
        if (parsed.uri().isPresent() || parsed.looksLikeUri()) {
            String scheme = parsed.uri().isPresent() ? parsed.scheme()
                    : location.substring(0, location.indexOf(':')).toLowerCase(java.util.Locale.ROOT);
            // a text that is no URI is shown by its scheme only: its user information may hold a password
            String shown = parsed.uri().isPresent() ? parsed.display() : scheme + "://...";
            if (!scheme.equals("file")) {
                throw new InvalidLocationException(ErrorCode.UNSUPPORTED_SCHEME, "output " + shown
                        + " is not a local folder: writes go to local folders only, for now (a location with a"
                        + " scheme, " + scheme + ":, is never taken for a path; write ./NAME for a local folder whose"
                        + " name holds a colon)");
            }
            if (parsed.uri().isEmpty()) {
                throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, "output " + shown
                        + " is not a valid file: URI (percent-encode spaces), nor taken for a path");
            }
        }
        try {
            return parsed.path();
        } catch (IllegalArgumentException | IllegalStateException e) {
            // InvalidPathException is an IllegalArgumentException: a name this file system cannot hold
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, "output " + parsed.display()
                    + " names no local folder: " + e.getMessage());
        }
    }

    /**
     * @param dir the folder
     * @return the folders created, innermost first (empty when it existed)
     * @throws StorageException {@link ErrorCode#WRITE_FAILED} naming {@code dir} when it is a file or cannot be created
     */
    static List<Path> create(Path dir) throws StorageException {
        Path abs = dir.toAbsolutePath();
        if (Files.isDirectory(abs)) {
            return List.of();
        }
        if (Files.exists(abs, LinkOption.NOFOLLOW_LINKS)) {
            throw new StorageException(ErrorCode.WRITE_FAILED, dir.toString(), "is a file, not a folder: name a"
                    + " folder to write the files into");
        }
        List<Path> created = new ArrayList<>();
        for (Path p = abs; p != null && !Files.exists(p, LinkOption.NOFOLLOW_LINKS); p = p.getParent()) {
            created.add(p);
        }
        try {
            Files.createDirectories(abs);
        } catch (IOException e) {
            removeIfEmpty(created);
            throw (StorageException) BlockCopy.writeFailed(dir.toString(), e instanceof StorageException ? e
                    : new java.io.IOException("cannot create the folder: " + reason(e), e));
        }
        return created;
    }

    private static String reason(IOException e) {
        if (e instanceof java.nio.file.FileSystemException f) {
            return (f.getReason() != null ? f.getReason() + " " : "") + "(" + f.getClass().getSimpleName() + " at "
                    + f.getFile() + ")";
        }
        return String.valueOf(e.getMessage());
    }

    /** @param created folders created by {@link #create}, removed innermost first while they are empty */
    static void removeIfEmpty(List<Path> created) {
        for (Path p : created) {
            try {
                Files.deleteIfExists(p);
            } catch (DirectoryNotEmptyException e) {
                return;
            } catch (IOException e) {
                return;
            }
        }
    }
}
