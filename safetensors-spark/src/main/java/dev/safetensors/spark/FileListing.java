package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.SourceAccessDeniedException;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.StorageException;
import dev.safetensors.core.NameGlob;
import dev.safetensors.core.PrefixSelection;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Turns the locations a user gave into the files to read, once per scan, on the driver.
 *
 * <p>A folder is listed once, with the library's listing call ({@link dev.safetensors.core.SourceRegistry#list}):
 * a local folder, or a remote prefix ({@code s3://}, {@code s3a://}, {@code gs://}, {@code az://}, {@code hf://})
 * written with a trailing {@code /} (or, with {@code recursiveFileLookup}, any remote location that does not name a
 * {@code .safetensors} file), page by page. A scheme no installed backend serves ({@code hdfs://}, {@code wasbs://},
 * {@code abfss://} without the Azure backend...) is listed and read through Hadoop's {@code FileSystem}
 * ({@link HadoopFiles}). Entries are kept when their file name matches {@code pathGlobFilter} (with the same glob
 * syntax everywhere); one that is not a regular file but matches (a dangling link, a FIFO, a folder named
 * {@code x.safetensors}) is kept too, so its read reports why, as a row: nothing matching disappears silently. A
 * file named explicitly is read whatever its name, and one that does not exist becomes a row with
 * {@code NOT_FOUND}, as any other unreadable file.
 *
 * <p>An entry that stands for what the listing could not read or name (a subfolder whose listing was refused,
 * {@code ACCESS_DENIED}, or failed, {@code IO_ERROR}; an object no request can name, {@code INVALID_LISTING}) fails
 * the scan with its code, as any folder that cannot be listed does: what it hides may be what the scan is for. With
 * {@code allowUnreadable} it is skipped and counted instead (the scan's {@code unreadable} metric). A link to a
 * folder or a loop met by a recursive walk is not followed, as the library's listing decides.
 *
 * <p>A load whose locations select no file at all (an empty folder, a mistyped prefix) fails with
 * {@code NOT_FOUND} naming what was searched, unless {@code allowEmpty}: a gate over the wrong location must not
 * pass. A file named explicitly always counts, as it is read (and reported) whether it exists or not.
 *
 * <p>With {@code expandIndex} (the default), each {@code *.safetensors.index.json} is read here (one request,
 * {@code ioThreads} at a time) and replaced by its shards, kept in one group with it; a shard listed on its own too
 * is read once, within {@link GroupedFiles}' bound. Without it, an index named explicitly is refused
 * ({@link IllegalArgumentException}): it names a checkpoint, which is not one safetensors file, and read as one it
 * would only fail.
 *
 * <p>Nothing is held per listed entry: the listing is handed on as it goes ({@link #list}), so a prefix of a million
 * objects costs the driver what the partitions cost ({@link FilePartition}) and what the grouping holds back.
 */
final class FileListing {
    /** Listings done in this JVM: the tests check that a scan lists once, however often Spark plans it. */
    static final AtomicLong LISTINGS = new AtomicLong();

    private FileListing() {
    }

    /** A file found, with its size when the listing told it ({@code -1} otherwise). */
    record Found(String location, long size) {
    }

    /**
     * Lists the locations and hands each group of files the scan reads to {@code sink}, in listing order, as the
     * listing goes: nothing is held per listed entry but what {@link GroupedFiles} holds back, within its bound.
     *
     * @param locations the locations given to the load
     * @param options   the scan's options
     * @param sink      takes each group, on this thread
     * @return the entries the listings could not read or name, skipped under {@code allowUnreadable}
     * @throws UncheckedIOException a location that cannot be listed, or an entry it could not read or name
     */
    static long list(List<String> locations, ScanOptions options, Consumer<FileGroup> sink) {
        LISTINGS.incrementAndGet();
        NameGlob glob = options.glob();
        long[] groups = new long[1];
        long unreadable = 0;
        try (GroupedFiles grouped = new GroupedFiles(options, g -> {
            groups[0]++;
            sink.accept(g);
        })) {
            for (String given : locations) {
                if (given == null || given.isBlank()) {
                    throw new IllegalArgumentException("a path to read is empty: name a file, a folder or a prefix");
                }
                String location = Locations.normalize(given);
                if (!options.expandIndex() && Location.parse(location).isIndex()) {
                    throw new IllegalArgumentException("option expandIndex is false, but " + Location.parse(location)
                            .display() + " is an index: it names a checkpoint, read as its shards only with"
                            + " expandIndex true (the default); name the shards themselves to read them without the"
                            + " index");
                }
                try {
                    Path local = Locations.localPath(location);
                    if (local != null && Files.isDirectory(local)) {
                        unreadable += listFolder(Location.of(local), glob, options, grouped);
                    } else if (local == null && HadoopFiles.handles(location)) {
                        if (HadoopFiles.isFolder(location)) {
                            // Hadoop lists in no promised order: sorted here, so rows come in one order everywhere
                            List<Found> found = new ArrayList<>();
                            HadoopFiles.list(location, options.recursiveFileLookup(),
                                    e -> keep(e, glob, options, found::add));
                            found.sort(Comparator.comparing(Found::location));
                            found.forEach(grouped::add);
                            grouped.endListing();
                        } else {
                            grouped.add(new Found(location, -1));
                        }
                    } else if (local == null && isPrefix(location, options)) {
                        unreadable += listFolder(Location.parse(location), glob, options, grouped);
                    } else {
                        grouped.add(new Found(location, -1));
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot list " + Location.parse(location).display() + ": "
                            + e.getMessage() + " [" + ErrorCode.of(e) + "]", e);
                }
            }
        }
        if (groups[0] == 0 && !options.allowEmpty()) {
            throw selectedNothing(locations, options);
        }
        return unreadable;
    }

    /**
     * A load that selected no file: {@code NOT_FOUND} naming what was searched, as a missing path fails Spark's own
     * file sources and as the command fails without {@code --allow-empty}.
     */
    private static UncheckedIOException selectedNothing(List<String> locations, ScanOptions options) {
        List<String> searched = new ArrayList<>();
        for (String l : locations) {
            searched.add(Location.parse(Locations.normalize(l)).display());
        }
        String where = String.join(", ", searched);
        String names = options.pathGlobFilter() + (options.expandIndex() ? " and *" + Location.INDEX_SUFFIX : "");
        SourceNotFoundException e = new SourceNotFoundException(where, "selected no file (searched for " + names
                + (options.recursiveFileLookup() ? ", subfolders included"
                : ", one level; option recursiveFileLookup lists subfolders")
                + "); option allowEmpty accepts an empty selection");
        return new UncheckedIOException(e.getMessage() + " [" + ErrorCode.NOT_FOUND + "]", e);
    }

    /**
     * @param entry an entry of a listing
     * @return the failure it stands for when the listing could not read or name it, or {@code null} for an entry
     *         that is what it says (a file, a folder, a link not followed)
     */
    static IOException unreadable(ListEntry entry) {
        String shown = entry.location().display();
        String skip = "; option allowUnreadable skips it, counted in the scan's unreadable metric";
        return switch (entry.kind()) {
            case DENIED -> new SourceAccessDeniedException(shown, "permission denied: the folder cannot be listed,"
                    + " so nothing it holds was read (check its permissions, or run as a user who may read it)"
                    + skip);
            case UNREADABLE -> new StorageException(ErrorCode.IO_ERROR, shown, "could not be read while listing"
                    + " (the file system failed, or it went during the walk), so nothing it holds was read" + skip);
            case INVALID_NAME -> new StorageException(ErrorCode.INVALID_LISTING, shown, "the listing names an"
                    + " object no request can name exactly (a NUL, a lone surrogate shown here as U+FFFD, or a . or"
                    + " .. segment the store resolves): it was not opened" + skip);
            case FILE, FOLDER, FIFO, DEVICE, DANGLING_LINK, FOLDER_LINK, LOOP -> null;
        };
    }

    private static boolean isPrefix(String location, ScanOptions options) {
        Location where = Location.parse(location);
        return where.isFolder() || (options.recursiveFileLookup() && !where.isIndex()
                && !where.fileName().endsWith(Location.FILE_SUFFIX));
    }

    /**
     * Lists a folder or prefix, its entries in the listing's order (an object store's key order; a local folder's is
     * the same, by code point), into the grouping.
     *
     * @return how many entries the listing could not read or name, skipped under {@code allowUnreadable}
     */
    private static long listFolder(Location folder, NameGlob glob, ScanOptions options, GroupedFiles grouped)
            throws IOException {
        ListOptions list = ListOptions.DEFAULT.withRecursive(options.recursiveFileLookup());
        try (Listing listing = SparkSources.registry().list(folder, list)) {
            return select(listing, glob, options, grouped::add);
        } finally {
            grouped.endListing();
        }
    }

    /**
     * Keeps a listing's entries that the scan reads.
     *
     * @return how many entries it could not read or name, skipped under {@code allowUnreadable}
     * @throws IOException the listing's failure, or the first entry it could not read or name
     */
    static long select(Listing listing, NameGlob glob, ScanOptions options, Consumer<Found> out)
            throws IOException {
        long unreadable = 0;
        while (listing.hasNext()) {
            ListEntry e = listing.next();
            IOException failure = unreadable(e);
            if (failure == null) {
                keep(e, glob, options, out);
            } else if (options.allowUnreadable()) {
                unreadable++;
            } else {
                throw failure;
            }
        }
        return unreadable;
    }

    private static void keep(ListEntry e, NameGlob glob, ScanOptions options, Consumer<Found> out) {
        String name = PrefixSelection.name(e.location());
        boolean wanted = glob.matches(name) || (options.expandIndex() && e.isFile() && name.endsWith(Location.INDEX_SUFFIX));
        if (!wanted) {
            return;
        }
        // a local entry keeps its path form, so rows name it as the user's folder did
        String text = e.location().text();
        out.accept(new Found(text, e.isFile() ? e.size() : -1));
    }
}
