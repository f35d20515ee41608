package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import java.util.Optional;

/**
 * The local files of one download, each touched without following a link: the partial file, the record of the
 * version it holds, and the record of the version the final file holds. A link, a folder, a FIFO or a device where a
 * partial file or its record belongs was not made by the tool: it is refused, never opened, truncated, deleted or
 * renamed into place. That refusal, like every failure to write one of them, is {@link ErrorCode#WRITE_FAILED}: the
 * output cannot be written.
 */
final class DownloadFiles {
    /** The most bytes a version record may hold: a version is a size, an ETag or generation, a time and a key. */
    static final int MAX_RECORD_BYTES = 1024;

    private DownloadFiles() {
    }

    /**
     * @param path a path
     * @return the attributes of what is at the path itself (a link is a link), or {@code null} when nothing is
     * @throws StorageException with {@link ErrorCode#WRITE_FAILED} if they cannot be read
     */
    static BasicFileAttributes at(Path path) throws StorageException {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw writeFailed(path, "cannot read what is there", e);
        }
    }

    /**
     * @param path     a partial file or a version record
     * @param attrs    what {@link #at} found there, or {@code null}
     * @throws StorageException with {@link ErrorCode#WRITE_FAILED} if something other than a regular file is there
     */
    static void requireRegularOrAbsent(Path path, BasicFileAttributes attrs) throws StorageException {
        if (attrs != null && !attrs.isRegularFile()) {
            throw new StorageException(ErrorCode.WRITE_FAILED, path.toString(), (attrs.isSymbolicLink()
                    ? "is a symbolic link" : attrs.isDirectory() ? "is a directory" : "is not a regular file")
                    + " where the download keeps its own partial file: the tool never writes through or publishes"
                    + " what it did not make; remove it and run again");
        }
    }

    /**
     * @param path  a regular file
     * @param attrs its attributes
     * @return whether the file has no other name (a hard link elsewhere would be written through when it is continued);
     *         true where the file system does not count links
     * @throws StorageException with {@link ErrorCode#WRITE_FAILED} if the count cannot be read
     */
    static boolean soleName(Path path, BasicFileAttributes attrs) throws StorageException {
        if (!path.getFileSystem().supportedFileAttributeViews().contains("unix")) {
            return true;
        }
        try {
            Object links = Files.getAttribute(path, "unix:nlink", LinkOption.NOFOLLOW_LINKS);
            return !(links instanceof Integer n) || n == 1;
        } catch (IOException e) {
            throw writeFailed(path, "cannot read its link count", e);
        }
    }

    /**
     * Reads a version record: a regular file (not followed through a link) of at most {@value #MAX_RECORD_BYTES}
     * bytes of UTF-8.
     *
     * @param path the record
     * @return the version it records; empty if there is none, or it is not a regular file, too long or not text
     * @throws StorageException with {@link ErrorCode#WRITE_FAILED} if it cannot be read
     */
    static Optional<String> readRecord(Path path) throws StorageException {
        BasicFileAttributes a = at(path);
        if (a == null || !a.isRegularFile() || a.size() > MAX_RECORD_BYTES) {
            return Optional.empty();
        }
        ByteBuffer buffer = ByteBuffer.allocate(MAX_RECORD_BYTES + 1);
        try (FileChannel in = FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            int n = 0;
            while (buffer.hasRemaining() && n >= 0) {
                n = in.read(buffer);
            }
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            // a link planted since the attributes were read cannot be opened without following it: no record
            if (at(path) == null || !at(path).isRegularFile()) {
                return Optional.empty();
            }
            throw writeFailed(path, "cannot read the version record", e);
        }
        if (buffer.position() > MAX_RECORD_BYTES) {
            // it grew past the bound since its size was read: no record
            return Optional.empty();
        }
        buffer.flip();
        try {
            return Optional.of(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(buffer).toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }

    /**
     * Writes a new version record; nothing may be at the path (a file there is deleted first by the caller), so a
     * link planted meanwhile makes the creation fail instead of being followed.
     *
     * @param path    the record
     * @param version what it records
     * @throws StorageException with {@link ErrorCode#WRITE_FAILED} if it cannot be written
     */
    static void writeRecord(Path path, String version) throws StorageException {
        try (FileChannel out = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer bytes = ByteBuffer.wrap(version.getBytes(StandardCharsets.UTF_8));
            while (bytes.hasRemaining()) {
                out.write(bytes);
            }
            out.force(true);
        } catch (IOException e) {
            throw writeFailed(path, "cannot write the version record", e);
        }
    }

    /**
     * Opens a partial file: a fresh one ({@code resume} false; nothing may be at the path, so a link planted meanwhile
     * is never followed) or the regular file found there ({@code held} its attributes), which must still be that file
     * once it is open.
     *
     * @param partial the partial file
     * @param held    the attributes of the partial file to continue, or {@code null} to create one
     * @return the channel, for reading and writing
     * @throws StorageException with {@link ErrorCode#WRITE_FAILED} if it cannot be opened, or another file took its
     *                          place
     */
    static FileChannel openPartial(Path partial, BasicFileAttributes held) throws StorageException {
        FileChannel ch;
        try {
            ch = held == null
                    ? FileChannel.open(partial, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)
                    : FileChannel.open(partial, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            requireRegularOrAbsent(partial, at(partial));
            throw writeFailed(partial, "cannot open the partial file", e);
        }
        if (held != null) {
            BasicFileAttributes now = at(partial);
            if (now == null || !now.isRegularFile() || !Objects.equals(now.fileKey(), held.fileKey())) {
                close(ch);
                throw new StorageException(ErrorCode.WRITE_FAILED, partial.toString(), "was replaced while it was"
                        + " opened; remove it and run again");
            }
        }
        return ch;
    }

    /**
     * @param path a regular file of the tool's (a partial file or a record) or nothing
     * @throws StorageException with {@link ErrorCode#WRITE_FAILED} if it cannot be deleted
     */
    static void delete(Path path) throws StorageException {
        try {
            // deleting never follows a link: at worst the link itself goes
            Files.deleteIfExists(path);
        } catch (IOException e) {
            throw writeFailed(path, "cannot delete", e);
        }
    }

    /**
     * @param path   the output path the failure is about
     * @param what   what could not be done
     * @param cause  the failure
     * @return the failure as {@link ErrorCode#WRITE_FAILED}; an interruption, or a failure that already carries a
     *         {@link StorageException} already, is kept as it is
     */
    static StorageException writeFailed(Path path, String what, IOException cause) {
        if (cause instanceof StorageException s) {
            return s;
        }
        ErrorCode code = ErrorCode.of(cause) == ErrorCode.INTERRUPTED ? ErrorCode.INTERRUPTED : ErrorCode.WRITE_FAILED;
        return new StorageException(code, path.toString(), what + ": " + cause, cause);
    }

    private static void close(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // the channel was never written: nothing is lost
        }
    }
}
