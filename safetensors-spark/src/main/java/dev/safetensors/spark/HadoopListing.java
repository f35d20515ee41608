package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.SourceStatistics;
import dev.safetensors.spi.SourceNames;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;

import java.io.IOException;
import java.net.URI;
import java.time.Instant;
import java.util.NoSuchElementException;

/**
 * A folder of a Hadoop {@link FileSystem} as a {@link Listing}, one level ({@link FileSystem#listStatusIterator}) or
 * the whole tree, both of which page through remote stores, so entries are handed over as they come. Subfolders
 * are reported one level down as {@link ListEntry.Kind#FOLDER}.
 *
 * <p>The whole tree is {@link FileSystem#listFiles} where the filesystem has no symbolic links (object stores' flat
 * listings stay one call). Where it has them, Hadoop's walk follows a link to a folder, so a link to an ancestor
 * lists the tree again at each level (two such links: exponentially); the walk is then this class's own, one
 * {@link FileSystem#listStatusIterator} per folder, and a link to a folder is reported as
 * {@link ListEntry.Kind#FOLDER_LINK}, not followed, as {@link ListEntry.Kind#FOLDER_LINK} says of every walk.
 *
 * <p>At most {@link ListOptions#maxEntries()} entries are handed over; one more is
 * {@link ErrorCode#INVALID_LISTING}, as is an entry the filesystem repeats at once (a stuck iterator).
 *
 * <p>Every entry is named below the folder as the caller wrote it: the folder's text followed by the entry's path
 * relative to it, each segment percent-encoded. Hadoop qualifies what it lists with the filesystem's own authority
 * ({@code hdfs:///x/} lists as {@code hdfs://namenode:8020/x/a}, {@code testfs:///x/} as {@code testfs:/x/a}); a
 * caller that compares an entry with the prefix it listed (a write's commit) needs the prefix's form.
 */
final class HadoopListing implements Listing {
    private final URI location;
    private final String prefix;
    private final String folderPath;
    private final String name;
    private final RemoteIterator<? extends FileStatus> files;
    private final long maxEntries;
    private volatile boolean closed;
    private long pages;
    private long yielded;
    private Path previous;

    private HadoopListing(URI location, String prefix, String folderPath, String name,
                          RemoteIterator<? extends FileStatus> files, long maxEntries) {
        this.location = location;
        this.prefix = prefix;
        this.folderPath = folderPath;
        this.name = name;
        this.files = files;
        this.maxEntries = maxEntries;
    }

    /**
     * @param folder  the folder, as the caller wrote it
     * @param options whether to list the whole tree, and the bound on entries
     * @param conf    the configuration that names the filesystem
     * @return the listing; an absent folder is {@link dev.safetensors.ErrorCode#NOT_FOUND}
     * @throws IOException a coded failure
     */
    static HadoopListing open(Location folder, ListOptions options, Configuration conf) throws IOException {
        boolean recursive = options.recursive();
        URI uri = HadoopSourceProvider.hadoopUri(folder);
        String name = SourceNames.redact(uri);
        try {
            Path path = new Path(uri);
            FileSystem fs = path.getFileSystem(conf);
            RemoteIterator<? extends FileStatus> files = !recursive ? fs.listStatusIterator(path)
                    : fs.supportsSymlinks() ? new Walk(fs, path) : fs.listFiles(path, true);
            String text = folder.text();
            String prefix = text.endsWith("/") ? text : text + "/";
            String folderPath = Path.getPathWithoutSchemeAndAuthority(path).toUri().getPath();
            return new HadoopListing(uri, prefix, folderPath.endsWith("/") ? folderPath : folderPath + "/", name,
                    files, options.maxEntries());
        } catch (IOException e) {
            throw HadoopSource.coded(uri, e);
        } catch (RuntimeException e) {
            throw HadoopSource.coded(uri, new IOException(e.toString(), e));
        }
    }

    @Override
    public boolean hasNext() throws IOException {
        if (closed) {
            return false;
        }
        try {
            return files.hasNext();
        } catch (IOException e) {
            throw HadoopSource.coded(location, e);
        }
    }

    @Override
    public ListEntry next() throws IOException {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        FileStatus status;
        try {
            status = files.next();
        } catch (IOException e) {
            throw HadoopSource.coded(location, e);
        }
        pages = Math.max(pages, 1);
        if (++yielded > maxEntries) {
            throw new dev.safetensors.StorageException(dev.safetensors.ErrorCode.INVALID_LISTING, name,
                    "the filesystem listed more than the " + maxEntries + " entries a listing may hold");
        }
        if (status.getPath().equals(previous)) {
            throw new dev.safetensors.StorageException(dev.safetensors.ErrorCode.INVALID_LISTING, name,
                    "the filesystem listed the same entry twice in a row");
        }
        previous = status.getPath();
        Location at = Location.parse(prefix + relative(status.getPath()));
        if (status instanceof LinkedFolder) {
            return ListEntry.special(at, ListEntry.Kind.FOLDER_LINK);
        }
        if (status.isDirectory()) {
            return ListEntry.special(at, ListEntry.Kind.FOLDER);
        }
        if (!status.isFile()) {
            return ListEntry.special(at, status.isSymlink() ? ListEntry.Kind.DANGLING_LINK : ListEntry.Kind.DEVICE);
        }
        return ListEntry.file(at, status.getLen(), null, Instant.ofEpochMilli(status.getModificationTime()));
    }

    /** @return the entry's path below the folder, each segment percent-encoded */
    private String relative(Path entry) throws IOException {
        String path = Path.getPathWithoutSchemeAndAuthority(entry).toUri().getPath();
        if (!path.startsWith(folderPath)) {
            throw new dev.safetensors.StorageException(dev.safetensors.ErrorCode.INVALID_LISTING, name,
                    "the filesystem listed an entry outside the folder");
        }
        StringBuilder encoded = new StringBuilder();
        for (String segment : path.substring(folderPath.length()).split("/", -1)) {
            encoded.append(encoded.length() == 0 ? "" : "/").append(Location.encodeSegment(segment));
        }
        return encoded.toString();
    }

    /** Hadoop does not say how many requests its iterators made: one page is counted once anything was listed. */
    @Override
    public SourceStatistics cost() {
        return new SourceStatistics(pages, 0, pages);
    }

    @Override
    public void close() {
        closed = true;
    }

    /** A folder the walk met through a symbolic link, reported and not descended into. */
    private static final class LinkedFolder extends FileStatus {
        private static final long serialVersionUID = 1L;

        LinkedFolder(FileStatus link) throws IOException {
            super(link);
        }
    }

    /**
     * The whole tree, depth first, one {@link FileSystem#listStatusIterator} per folder, files and links to folders
     * handed over, folders descended into unless reached through a symbolic link. A filesystem that resolves links
     * in its listings (the local one) is asked for the link's own status of each folder it lists.
     */
    private static final class Walk implements RemoteIterator<FileStatus> {
        private final FileSystem fs;
        private final java.util.ArrayDeque<RemoteIterator<FileStatus>> folders = new java.util.ArrayDeque<>();
        private FileStatus next;

        Walk(FileSystem fs, Path root) throws IOException {
            this.fs = fs;
            folders.push(fs.listStatusIterator(root));
        }

        @Override
        public boolean hasNext() throws IOException {
            while (next == null && !folders.isEmpty()) {
                RemoteIterator<FileStatus> top = folders.peek();
                if (!top.hasNext()) {
                    folders.pop();
                    continue;
                }
                FileStatus status = top.next();
                boolean link = status.isSymlink()
                        || status.isDirectory() && isLink(status.getPath());
                if (link && (status.isDirectory() || isFolder(status))) {
                    next = new LinkedFolder(status);
                } else if (status.isDirectory()) {
                    folders.push(fs.listStatusIterator(status.getPath()));
                } else {
                    next = status;
                }
            }
            return next != null;
        }

        /**
         * @return whether the folder is a symbolic link. Asked without scheme and authority: the local filesystem
         *         reads the link of {@code new File(path.toString())}, which a qualified path is not
         */
        private boolean isLink(Path folder) throws IOException {
            try {
                return fs.getFileLinkStatus(Path.getPathWithoutSchemeAndAuthority(folder)).isSymlink();
            } catch (RuntimeException e) {
                throw new IOException(e.toString(), e);
            }
        }

        /** @return whether a link the listing did not resolve (HDFS lists links as links) leads to a folder */
        private boolean isFolder(FileStatus link) throws IOException {
            try {
                return fs.getFileStatus(link.getPath()).isDirectory();
            } catch (java.io.FileNotFoundException dangling) {
                return false;
            }
        }

        @Override
        public FileStatus next() throws IOException {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            FileStatus out = next;
            next = null;
            return out;
        }
    }

    /** A folder that does not exist yet, to a writer about to create it: nothing listed, nothing spent. */
    static final class Empty implements Listing {
        @Override
        public boolean hasNext() {
            return false;
        }

        @Override
        public ListEntry next() {
            throw new NoSuchElementException();
        }

        @Override
        public SourceStatistics cost() {
            return SourceStatistics.NONE;
        }

        @Override
        public void close() {
        }
    }
}
