package dev.safetensors.spark;

import dev.safetensors.ListEntry;
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
 * the whole tree ({@link FileSystem#listFiles}), both of which page through remote stores, so entries are handed
 * over as they come. Subfolders are reported one level down as {@link ListEntry.Kind#FOLDER}.
 *
 * <p>Every entry is named below the folder as the caller wrote it: the folder's text followed by the entry's path
 * relative to it, each segment percent-encoded. Hadoop qualifies what it lists with the filesystem's own authority
 * ({@code hdfs:///x/} lists as {@code hdfs://namenode:8020/x/a}, {@code testfs:///x/} as {@code testfs:/x/a}); a
 * caller that compares an entry with the prefix it listed (a write's commit) needs the prefix's form.
 */
final class HadoopListing implements Listing {
    private final String prefix;
    private final String folderPath;
    private final String name;
    private final RemoteIterator<? extends FileStatus> files;
    private volatile boolean closed;
    private long pages;

    private HadoopListing(String prefix, String folderPath, String name, RemoteIterator<? extends FileStatus> files) {
        this.prefix = prefix;
        this.folderPath = folderPath;
        this.name = name;
        this.files = files;
    }

    /**
     * @param folder    the folder, as the caller wrote it
     * @param recursive whether to list the whole tree
     * @param conf      the configuration that names the filesystem
     * @return the listing; an absent folder is {@link dev.safetensors.ErrorCode#NOT_FOUND}
     * @throws IOException a coded failure
     */
    static HadoopListing open(Location folder, boolean recursive, Configuration conf) throws IOException {
        URI uri = HadoopSourceProvider.hadoopUri(folder);
        String name = SourceNames.redact(uri);
        try {
            Path path = new Path(uri);
            FileSystem fs = path.getFileSystem(conf);
            RemoteIterator<? extends FileStatus> files = recursive ? fs.listFiles(path, true)
                    : fs.listStatusIterator(path);
            String text = folder.text();
            String prefix = text.endsWith("/") ? text : text + "/";
            String folderPath = Path.getPathWithoutSchemeAndAuthority(path).toUri().getPath();
            return new HadoopListing(prefix, folderPath.endsWith("/") ? folderPath : folderPath + "/", name, files);
        } catch (IOException e) {
            throw HadoopSource.coded(name, e);
        } catch (RuntimeException e) {
            throw HadoopSource.coded(name, new IOException(e.toString(), e));
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
            throw HadoopSource.coded(name, e);
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
            throw HadoopSource.coded(name, e);
        }
        pages = Math.max(pages, 1);
        Location at = Location.parse(prefix + relative(status.getPath()));
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
