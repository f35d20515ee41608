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
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * A local folder listed lazily, in the order of an object store's listing: each folder's names are read and sorted
 * by code point (UTF-8 byte order, as S3 and GCS sort keys), a subfolder sorting as its name followed by {@code /}, so
 * a recursive walk yields its files in the order a listing of the same tree in a bucket would. Memory grows with the
 * names of the folders on the path being walked, never with the files below them, and is bounded by
 * {@link ListOptions#maxEntries()} (a folder holding more ends the listing {@link ErrorCode#INVALID_LISTING} before
 * its first entry, as the walk would after that many). A recursive walk never leaves its root through a symbolic link: a link to a folder
 * is reported as {@link ListEntry.Kind#FOLDER_LINK} and not followed (a link to {@code /}, or a diamond of links
 * that would list one folder 2^n times, costs one entry), and a folder reached again by another way (a bind mount)
 * is a {@link ListEntry.Kind#LOOP}. Links to files are followed, as a read of the file would. FIFOs, devices,
 * sockets, dangling links, subfolders whose reading is refused ({@link ListEntry.Kind#DENIED}) and subfolders that
 * fail otherwise ({@link ListEntry.Kind#UNREADABLE}) are reported with their kind, never dropped. Subfolders are
 * reported as {@link ListEntry.Kind#FOLDER} entries in both modes (a recursive walk then descends into them), so a
 * folder whose name looks like a file can be named. Thread-safe:
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
    /** The names read and not yet returned, over every level of the walk. */
    private long held;
    private boolean overflow;
    private volatile boolean closed;

    /**
     * One folder of the walk: its names, sorted, still to return, and, when reading them failed partway, what the
     * folder is reported as after them.
     */
    private record Level(Iterator<Path> names, ListEntry.Kind failed, Object key, Path real) {
    }

    /** A name read from a folder with the key it sorts by: the name, with a {@code /} after a subfolder's. */
    private record Named(Path path, String key) {
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
        List<Named> names = new ArrayList<>();
        ListEntry.Kind failed = null;
        long room = options.maxEntries() - entries - held;
        try (DirectoryStream<Path> stream = folders.open(dir)) {
            Iterator<Path> it = stream.iterator();
            while (it.hasNext()) {
                if (names.size() >= room) {
                    // every name read is an entry to come: past the bound the walk would fail anyway
                    overflow = true;
                    break;
                }
                Path p = it.next();
                names.add(new Named(p, String.valueOf(p.getFileName())));
            }
        } catch (DirectoryIteratorException e) {
            failed = e.getCause() instanceof AccessDeniedException ? ListEntry.Kind.DENIED : ListEntry.Kind.UNREADABLE;
        }
        names.sort((a, b) -> byCodePoint(a.key(), b.key()));
        if (subfoldersMove(names)) {
            names.sort((a, b) -> byCodePoint(a.key(), b.key()));
        }
        List<Path> sorted = new ArrayList<>(names.size());
        for (Named n : names) {
            sorted.add(n.path());
        }
        held += sorted.size();
        stack.push(new Level(sorted.iterator(), failed, key, real));
    }

    /**
     * Gives the subfolders whose place a {@code /} changes the key {@code NAME/}: only a name that the next one
     * (sorted by name) starts with can move ({@code a} before {@code a-b}, but {@code a/} after it), so only those
     * cost a look at the file system, not every name.
     *
     * @param names a folder's names, sorted by name; changed in place
     * @return whether a key changed, so the names must be sorted again
     */
    private static boolean subfoldersMove(List<Named> names) {
        boolean moved = false;
        for (int i = 0; i + 1 < names.size(); i++) {
            Named n = names.get(i);
            if (names.get(i + 1).key().startsWith(n.key()) && Files.isDirectory(n.path())) {
                names.set(i, new Named(n.path(), n.key() + "/"));
                moved = true;
            }
        }
        return moved;
    }

    /** Compares as UTF-8 bytes do: by code point, where {@link String#compareTo} would put U+E000..U+FFFF last. */
    static int byCodePoint(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int x = a.codePointAt(i);
            int y = b.codePointAt(j);
            if (x != y) {
                return Integer.compare(x, y);
            }
            i += Character.charCount(x);
            j += Character.charCount(y);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }

    @Override
    public synchronized boolean hasNext() throws IOException {
        while (pending == null && !closed && !stack.isEmpty()) {
            if (Thread.currentThread().isInterrupted()) {
                throw new StorageException(ErrorCode.INTERRUPTED, name, "the listing was interrupted");
            }
            if (overflow) {
                throw new StorageException(ErrorCode.INVALID_LISTING, name, "the folder holds more than "
                        + options.maxEntries() + " entries (the bound)");
            }
            Level top = stack.peek();
            if (!top.names().hasNext()) {
                stack.pop();
                if (top.failed() != null) {
                    pending = ListEntry.special(Location.of(top.real()), top.failed());
                    break;
                }
                continue;
            }
            Path p = top.names().next();
            held--;
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
        // each folder's stream was closed once its names were read: nothing but the names is held
        stack.clear();
        held = 0;
    }
}
