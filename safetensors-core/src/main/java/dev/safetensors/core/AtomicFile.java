package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import dev.safetensors.spi.SourceNames;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import dev.safetensors.core.internal.write.TempFileJanitor;

/**
 * A file written into a temporary file beside its target and renamed over it on {@link #commit()}: readers see the
 * old file or the whole new one, never a part. The contract:
 * <ul>
 *   <li>the temporary file ({@code .NAME.RANDOM.tmp}) is created in the target's folder, so the rename stays on one
 *       file system; {@link #commit()} forces the bytes to the device, then renames the file over the target
 *       atomically;</li>
 *   <li>a symbolic link is written through: its final target is replaced and the link stays (a link to a missing
 *       file is refused, {@link ErrorCode#NOT_FOUND});</li>
 *   <li>a replaced file's POSIX permissions are kept (a 0600 file stays 0600), and the temporary file has them from
 *       its creation, so the new bytes are never more readable than the old ones; a new file gets the process's
 *       default (umask) permissions; the owner is the writer's, as with any new file;</li>
 *   <li>a directory, FIFO or device is refused ({@link ErrorCode#NOT_A_FILE});</li>
 *   <li>a target that is one of the given input files (the same file key: the same path, a hard or symbolic link to
 *       it) is refused before anything is written ({@link ErrorCode#WRITE_FAILED}): writing it would destroy what is
 *       being read;</li>
 *   <li>on any failure, on {@link #close()} without a commit, and when the JVM shuts down (SIGTERM, SIGINT,
 *       {@code System.exit}) before the commit, the temporary file is deleted and the target is left as it was.</li>
 * </ul>
 * Refusals are {@link IOException}s with an {@link ErrorCode} ({@link ErrorCode#of(Throwable)}) that name the path as
 * given. Not thread-safe: one writer fills {@link #channel()}, then commits, and always closes.
 *
 * <pre>{@code
 * try (AtomicFile file = AtomicFile.replacing(Path.of("out.bin"))) {
 *     file.channel().write(ByteBuffer.wrap(bytes));
 *     file.commit();
 * }
 * }</pre>
 */
public final class AtomicFile implements Closeable {
    private final Path target;
    private final Path temp;
    private final boolean replace;
    private final FileChannel channel;
    private final TempFileJanitor janitor;
    private boolean done;

    private AtomicFile(Path target, Path temp, boolean replace, FileChannel channel, TempFileJanitor janitor) {
        this.target = target;
        this.temp = temp;
        this.replace = replace;
        this.channel = channel;
        this.janitor = janitor;
    }

    /**
     * Opens a file that creates or replaces {@code path} on {@link #commit()}.
     *
     * @param path   where the file goes; an existing file is replaced
     * @param inputs files being read that {@code path} must not be (compared by file key; a missing one is ignored)
     * @return an open temporary file; write to {@link #channel()}, {@link #commit()}, and always {@link #close()}
     * @throws IOException if the target is refused (see the class comment) or the temporary file cannot be created
     *                     (a missing folder: {@link ErrorCode#NOT_FOUND})
     */
    public static AtomicFile replacing(Path path, Path... inputs) throws IOException {
        return create(path, true, List.of(inputs), TempFileJanitor.JVM);
    }

    /**
     * @param path    where the file goes
     * @param replace whether an existing file may be replaced
     * @param janitor the registry of temporary files
     * @return an open temporary file
     * @throws IOException if the target is refused (see the class comment) or the file cannot be created
     */
    static AtomicFile create(Path path, boolean replace, TempFileJanitor janitor) throws IOException {
        return create(path, replace, List.of(), janitor, true);
    }

    /**
     * The same for a file renamed by a {@link CommitJournal}: the temporary file is always beside {@code path}, and a
     * symbolic link there is replaced by the new file rather than written through.
     *
     * @param path    where the file goes
     * @param replace whether an existing file may be replaced
     * @param janitor the registry of temporary files
     * @return an open temporary file
     * @throws IOException if the target is refused (see the class comment) or the file cannot be created
     */
    static AtomicFile beside(Path path, boolean replace, TempFileJanitor janitor) throws IOException {
        return create(path, replace, List.of(), janitor, false);
    }

    private static AtomicFile create(Path path, boolean replace, List<Path> inputs, TempFileJanitor janitor)
            throws IOException {
        return create(path, replace, inputs, janitor, true);
    }

    private static AtomicFile create(Path path, boolean replace, List<Path> inputs, TempFileJanitor janitor,
                                     boolean follow) throws IOException {
        Path target = follow ? resolve(path) : path.toAbsolutePath();
        Set<PosixFilePermission> keep = null;
        if (!follow && Files.isSymbolicLink(target)) {
            if (!replace) {
                throw exists(path);
            }
        } else if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            if (!Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
                throw new StorageException(ErrorCode.NOT_A_FILE, path.toString(), Files.isDirectory(target)
                        ? "is a directory: name the file to write"
                        : "is not a regular file (a FIFO, socket or device)");
            }
            for (Path input : inputs) {
                if (Files.exists(input) && Files.isSameFile(target, input)) {
                    throw new StorageException(ErrorCode.WRITE_FAILED, path.toString(), "is the file being read:"
                            + " writing it would destroy the source; name another file");
                }
            }
            if (!replace) {
                throw exists(path);
            }
            PosixFileAttributeView view = Files.getFileAttributeView(target, PosixFileAttributeView.class);
            keep = view == null ? null : view.readAttributes().permissions();
        }
        Path temp = target.resolveSibling(tempName(target.getFileName().toString()));
        // not Files.createTempFile: its owner-only permissions would end up on the result
        FileAttribute<?>[] attrs = keep == null ? new FileAttribute<?>[0]
                : new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(keep)};
        FileChannel ch;
        try {
            ch = FileChannel.open(temp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), attrs);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(path.toString(), null, "its folder does not exist: create it or write"
                    + " elsewhere");
        }
        janitor.register(temp);
        AtomicFile file = new AtomicFile(target, temp, replace, ch, janitor);
        if (keep != null) {
            try {
                // the creation mode passed through the umask; set exactly what the old file had
                Files.setPosixFilePermissions(temp, keep);
            } catch (IOException | RuntimeException e) {
                file.close();
                throw e;
            }
        }
        return file;
    }

    /**
     * The one place the temporary name is formatted: hidden, the final name kept readable, and a random part so that
     * two writers never share a file.
     *
     * @param name the final file name
     * @return {@code .NAME.RANDOM.tmp}, RANDOM an unsigned 64-bit number in base 36
     */
    static String tempName(String name) {
        return "." + name + "." + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36) + ".tmp";
    }

    /**
     * @param temp a file name
     * @param name a final file name
     * @return whether {@code temp} is a name {@link #tempName(String)} gives for {@code name}
     */
    static boolean isTempName(String temp, String name) {
        String start = "." + name + ".";
        if (!temp.startsWith(start) || !temp.endsWith(".tmp") || temp.length() <= start.length() + 4) {
            return false;
        }
        String random = temp.substring(start.length(), temp.length() - 4);
        for (int i = 0; i < random.length(); i++) {
            char c = random.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'z')) {
                return false;
            }
        }
        try {
            // the canonical spelling only: no leading zeros, nothing past 2^64
            return Long.toUnsignedString(Long.parseUnsignedLong(random, 36), 36).equals(random);
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** @return the resolved target: a symbolic link's final target */
    static Path resolve(Path path) throws IOException {
        Path target = path.toAbsolutePath();
        if (Files.isSymbolicLink(target)) {
            try {
                return target.toRealPath();
            } catch (NoSuchFileException e) {
                throw new NoSuchFileException(path.toString(), null, "is a symbolic link to a file that does not"
                        + " exist: create the file, fix the link or write elsewhere");
            }
        }
        return target;
    }

    /**
     * The one way a complete file is put in place, by every writer (this class, a {@link CommitJournal}'s renames,
     * {@link FileDownload}): one atomic rename over whatever is at {@code to}, so a reader sees the old file or the
     * new one, never a mixture. A link at {@code to} is replaced, never written through. Where the file system cannot
     * rename atomically (the two paths on different file systems), nothing is moved: a copy would show a reader
     * half a file.
     *
     * @param from a complete file, beside {@code to}
     * @param to   where it goes
     * @throws StorageException with {@link ErrorCode#WRITE_FAILED} if the rename fails or cannot be atomic; nothing
     *                          has moved then
     */
    public static void rename(Path from, Path to) throws StorageException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new StorageException(ErrorCode.WRITE_FAILED, to.toString(), "cannot rename "
                    + from.getFileName() + " into place atomically (another file system?)", e);
        } catch (IOException e) {
            throw new StorageException(ErrorCode.WRITE_FAILED, to.toString(), "cannot rename "
                    + from.getFileName() + " into place: " + SourceNames.reason(e), e);
        }
    }

    private static StorageException exists(Path path) {
        return new StorageException(ErrorCode.ALREADY_EXISTS, path.toString(), "exists: refusing to replace it");
    }

    /**
     * @return the channel to write the content to, from position 0; {@link #commit()} and {@link #close()} close it
     */
    public FileChannel channel() {
        return channel;
    }

    /** @return the file being replaced or created, absolute, a symbolic link resolved to its final target */
    public Path target() {
        return target;
    }

    /**
     * Forces the content to the device and renames the temporary file over the target. Call it once.
     *
     * @throws IOException if that fails; the temporary file is then deleted and the target left as it was
     */
    public void commit() throws IOException {
        commit(true);
    }

    /** @param force whether to force the content to the device before the rename */
    void commit(boolean force) throws IOException {
        try {
            if (force) {
                channel.force(true);
            }
            channel.close();
            if (replace) {
                rename(temp, target);
            } else {
                try {
                    Files.move(temp, target);
                } catch (FileAlreadyExistsException e) {
                    throw exists(target);
                }
            }
            done = true;
            janitor.release(temp);
        } finally {
            close();
        }
    }

    /**
     * Ends writing without renaming: forces the content to the device if asked and closes the channel. The temporary
     * file stays, still registered for deletion at shutdown; the caller renames it (through a {@link CommitJournal})
     * or deletes it, and {@link #close()} no longer touches it.
     *
     * @param force whether to force the content to the device
     * @return the temporary file
     * @throws IOException if forcing or closing fails; the temporary file is then deleted
     */
    Path stage(boolean force) throws IOException {
        try {
            if (force) {
                channel.force(true);
            }
            channel.close();
        } catch (IOException e) {
            close();
            throw e;
        }
        done = true;
        return temp;
    }

    /**
     * Deletes the temporary file unless it was committed; the target is then left as it was. Idempotent.
     *
     * @throws IOException if the temporary file cannot be deleted
     */
    @Override
    public void close() throws IOException {
        if (done) {
            return;
        }
        done = true;
        try {
            channel.close();
        } finally {
            Files.deleteIfExists(temp);
            janitor.release(temp);
        }
    }
}
