package dev.safetensors.core.internal.listing;

import dev.safetensors.ErrorCode;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.SourceStatistics;
import dev.safetensors.StorageException;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * A local folder listed lazily: one directory stream open per level of the walk, so memory grows with the depth,
 * never with the number of files. A recursive walk never leaves its root through a symbolic link: a link to a folder
 * is reported as {@link ListEntry.Kind#FOLDER_LINK} and not followed (a link to {@code /}, or a diamond of links
 * that would list one folder 2^n times, costs one entry), and a folder reached again by another way (a bind mount)
 * is a {@link ListEntry.Kind#LOOP}. Links to files are followed, as a read of the file would. FIFOs, devices,
 * sockets, dangling links, subfolders whose reading is refused ({@link ListEntry.Kind#DENIED}) and subfolders that
 * fail otherwise ({@link ListEntry.Kind#UNREADABLE}) are reported with their kind, never dropped. Subfolders are
 * reported as {@link ListEntry.Kind#FOLDER} entries in both modes (a recursive walk then descends into them), so a
 * folder whose name looks like a file can be named. Entries come in the file system's order. Thread-safe:
 * {@link #close()} waits for a step of the walk in progress.
 */
public final class FolderListing implements Listing {
    /** Unix file type bits of {@code unix:mode}. */
    private static final int S_IFMT = 0170000;
    private static final int S_IFIFO = 0010000;

    /** Opens a folder's entries: {@link Files#newDirectoryStream(Path)}, or a test's stand-in. */
    interface Folders {
        /**
         * @param dir a folder
         * @return its entries
         * @throws IOException as {@link Files#newDirectoryStream(Path)} throws
         */
        DirectoryStream<Path> open(Path dir) throws IOException;
    }

    private final ListOptions options;
    private final Folders folders;
    private final ArrayDeque<Level> stack = new ArrayDeque<>();
    private final String name;
    private ListEntry pending;
    private long entries;
    private volatile boolean closed;

    private record Level(DirectoryStream<Path> stream, Iterator<Path> names, Object key, Path real) {
    }

    private FolderListing(Path root, ListOptions options, Folders folders) {
        this.options = options;
        this.folders = folders;
        this.name = root.toString();
    }

    /**
     * @param root    the folder
     * @param options recursion and bounds (the page size does not apply)
     * @return the listing, its root already opened
     * @throws IOException {@link ErrorCode#NOT_FOUND} for a missing folder, {@link ErrorCode#NOT_A_FILE} for a file,
     *                     {@link ErrorCode#ACCESS_DENIED} for one that cannot be read
     */
    public static FolderListing open(Path root, ListOptions options) throws IOException {
        return open(root, options, Files::newDirectoryStream);
    }

    /**
     * @param root    the folder
     * @param options recursion and bounds
     * @param folders opens each folder's entries
     * @return the listing, its root already opened
     * @throws IOException as {@link #open(Path, ListOptions)}
     */
    static FolderListing open(Path root, ListOptions options, Folders folders) throws IOException {
        FolderListing listing = new FolderListing(root, options, folders);
        try {
            Path real = root.toRealPath();
            BasicFileAttributes attrs = Files.readAttributes(real, BasicFileAttributes.class);
            if (!attrs.isDirectory()) {
                throw new StorageException(ErrorCode.NOT_A_FILE, root.toString(), "is not a folder: only a folder"
                        + " can be listed");
            }
            listing.push(root, real, attrs.fileKey());
        } catch (NoSuchFileException e) {
            throw new StorageException(ErrorCode.NOT_FOUND, root.toString(), "no such folder", e);
        } catch (AccessDeniedException e) {
            throw new StorageException(ErrorCode.ACCESS_DENIED, root.toString(), "cannot read the folder", e);
        }
        return listing;
    }

    private void push(Path dir, Path real, Object key) throws IOException {
        DirectoryStream<Path> stream = folders.open(dir);
        stack.push(new Level(stream, stream.iterator(), key, real));
    }

    @Override
    public synchronized boolean hasNext() throws IOException {
        while (pending == null && !closed && !stack.isEmpty()) {
            if (Thread.currentThread().isInterrupted()) {
                throw new StorageException(ErrorCode.INTERRUPTED, name, "the listing was interrupted");
            }
            Level top = stack.peek();
            Path p;
            try {
                if (!top.names().hasNext()) {
                    stack.pop().stream().close();
                    continue;
                }
                p = top.names().next();
            } catch (DirectoryIteratorException e) {
                stack.pop().stream().close();
                pending = ListEntry.special(Location.of(top.real()), e.getCause() instanceof AccessDeniedException
                        ? ListEntry.Kind.DENIED : ListEntry.Kind.UNREADABLE);
                break;
            }
            pending = entry(p);
        }
        if (pending != null && ++entries > options.maxEntries()) {
            throw new StorageException(ErrorCode.INVALID_LISTING, name, "the folder holds more than "
                    + options.maxEntries() + " entries (the bound)");
        }
        return pending != null;
    }

    private ListEntry entry(Path p) throws IOException {
        Location at = Location.of(p);
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(p, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            boolean link = Files.isSymbolicLink(p);
            return ListEntry.special(at, link ? ListEntry.Kind.DANGLING_LINK : ListEntry.Kind.UNREADABLE);
        } catch (IOException e) {
            // a link loop among links themselves (a -> b -> a) cannot be followed either
            return ListEntry.special(at, Files.isSymbolicLink(p) ? ListEntry.Kind.LOOP : ListEntry.Kind.UNREADABLE);
        }
        if (attrs.isRegularFile()) {
            return ListEntry.file(at, attrs.size(), null, attrs.lastModifiedTime().toInstant());
        }
        if (attrs.isDirectory()) {
            if (!options.recursive()) {
                return ListEntry.special(at, ListEntry.Kind.FOLDER);
            }
            if (Files.isSymbolicLink(p)) {
                // followed, a link could lead anywhere (to /, to /proc/*/cwd) or to one folder by 2^n ways
                return ListEntry.special(at, ListEntry.Kind.FOLDER_LINK);
            }
            Path real;
            try {
                real = p.toRealPath();
            } catch (IOException e) {
                return ListEntry.special(at, ListEntry.Kind.UNREADABLE);
            }
            for (Level level : stack) {
                if (Objects.equals(level.key(), attrs.fileKey()) && level.key() != null || level.real().equals(real)) {
                    return ListEntry.special(at, ListEntry.Kind.LOOP);
                }
            }
            try {
                push(p, real, attrs.fileKey());
            } catch (AccessDeniedException e) {
                return ListEntry.special(at, ListEntry.Kind.DENIED);
            } catch (IOException e) {
                return ListEntry.special(at, ListEntry.Kind.UNREADABLE);
            }
            return ListEntry.special(at, ListEntry.Kind.FOLDER);
        }
        return ListEntry.special(at, isFifo(p) ? ListEntry.Kind.FIFO : ListEntry.Kind.DEVICE);
    }

    private static boolean isFifo(Path p) {
        try {
            Object mode = Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            if (Files.isSymbolicLink(p)) {
                mode = Files.getAttribute(p, "unix:mode");
            }
            return mode instanceof Integer m && (m & S_IFMT) == S_IFIFO;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
    }

    @Override
    public synchronized ListEntry next() throws IOException {
        if (!hasNext()) {
            throw new NoSuchElementException("the listing of " + name + " has ended");
        }
        ListEntry e = pending;
        pending = null;
        return e;
    }

    @Override
    public SourceStatistics cost() {
        return SourceStatistics.NONE;
    }

    @Override
    public synchronized void close() {
        closed = true;
        while (!stack.isEmpty()) {
            try {
                stack.pop().stream().close();
            } catch (IOException e) {
                // closing a directory stream releases a descriptor; a failure leaves nothing to undo
            }
        }
    }
}
