package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The folder a multi-file write goes into: created when missing, removed again if the write fails. */
final class OutputFolder {
    private OutputFolder() {
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
