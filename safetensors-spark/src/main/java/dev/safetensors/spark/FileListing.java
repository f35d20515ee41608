package dev.safetensors.spark;

import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.core.CheckpointFiles;
import dev.safetensors.core.NameGlob;
import dev.safetensors.core.PrefixSelection;
import dev.safetensors.core.ShardIndex;
import dev.safetensors.core.Sources;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Turns the locations a user gave into the files to read, once per scan, on the driver.
 *
 * <p>A folder is listed once, with the library's listing call ({@link dev.safetensors.core.SourceRegistry#list}):
 * a local folder, or a remote prefix ({@code s3://}, {@code s3a://}, {@code gs://}, {@code hf://}) written with a
 * trailing {@code /} (or, with {@code recursiveFileLookup}, any remote location that does not name a
 * {@code .safetensors} file), page by page. Any other scheme ({@code hdfs://}, {@code abfss://}...) is listed and
 * read through Hadoop's {@code FileSystem} ({@link HadoopFiles}). Entries are kept when their file name matches
 * {@code pathGlobFilter} (with the same glob syntax everywhere); one that is not a regular file but matches (a
 * dangling link, a FIFO, a folder named {@code x.safetensors}) is kept too, so its read reports why, as a row:
 * nothing matching disappears silently. A file named explicitly is read whatever its name, and one that does not
 * exist becomes a row with {@code NOT_FOUND}, as any other unreadable file.
 *
 * <p>With {@code expandIndex}, each {@code *.safetensors.index.json} is read here (one request) and replaced by
 * its shards, kept in one group with it; a shard listed on its own too is read once.
 */
final class FileListing {
    /** Listings done in this JVM: the tests check that a scan lists once, however often Spark plans it. */
    static final AtomicLong LISTINGS = new AtomicLong();
    static final String INDEX_SUFFIX = Location.INDEX_SUFFIX;

    private FileListing() {
    }

    /** A file found, with its size when the listing told it ({@code -1} otherwise). */
    private record Found(String location, long size) {
    }

    static List<FileGroup> list(List<String> locations, ScanOptions options) {
        LISTINGS.incrementAndGet();
        NameGlob glob = options.glob();
        List<Found> files = new ArrayList<>();
        for (String given : locations) {
            if (given == null || given.isBlank()) {
                throw new IllegalArgumentException("a path to read is empty: name a file, a folder or a prefix");
            }
            String location = Locations.normalize(given);
            try {
                Path local = Locations.localPath(location);
                if (local != null && Files.isDirectory(local)) {
                    listFolder(Location.of(local), glob, options, files);
                } else if (local == null && HadoopFiles.handles(location)) {
                    if (HadoopFiles.isFolder(location)) {
                        List<Found> found = new ArrayList<>();
                        HadoopFiles.list(location, options.recursiveFileLookup(),
                                e -> keep(e, glob, options, found));
                        found.sort(Comparator.comparing(Found::location));
                        files.addAll(found);
                    } else {
                        files.add(new Found(location, -1));
                    }
                } else if (local == null && isPrefix(location, options)) {
                    listFolder(Location.parse(location), glob, options, files);
                } else {
                    files.add(new Found(location, -1));
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list " + dev.safetensors.Location.parse(location).display()
                        + ": " + e.getMessage() + " [" + dev.safetensors.ErrorCode.of(e) + "]", e);
            }
        }
        return options.expandIndex() ? expand(files) : distinct(files);
    }

    private static boolean isPrefix(String location, ScanOptions options) {
        Location where = Location.parse(location);
        return where.isFolder() || (options.recursiveFileLookup() && !where.isIndex()
                && !where.fileName().endsWith(Location.FILE_SUFFIX));
    }

    private static void listFolder(Location folder, NameGlob glob, ScanOptions options, List<Found> out)
            throws IOException {
        List<Found> found = new ArrayList<>();
        ListOptions list = ListOptions.DEFAULT.withRecursive(options.recursiveFileLookup());
        try (Listing listing = Sources.registry().list(folder, list)) {
            while (listing.hasNext()) {
                keep(listing.next(), glob, options, found);
            }
        }
        found.sort(Comparator.comparing(Found::location));
        out.addAll(found);
    }

    private static void keep(ListEntry e, NameGlob glob, ScanOptions options, List<Found> out) {
        String name = PrefixSelection.name(e.location());
        boolean wanted = glob.matches(name) || (options.expandIndex() && e.isFile() && name.endsWith(INDEX_SUFFIX));
        if (!wanted) {
            return;
        }
        // a local entry keeps its path form, so rows name it as the user's folder did
        String text = e.location().text();
        out.add(new Found(text, e.isFile() ? e.size() : -1));
    }

    private static List<FileGroup> distinct(List<Found> files) {
        Set<String> seen = new LinkedHashSet<>();
        List<FileGroup> groups = new ArrayList<>();
        for (Found f : files) {
            if (seen.add(f.location())) {
                groups.add(FileGroup.of(f.location(), f.size()));
            }
        }
        return groups;
    }

    private static List<FileGroup> expand(List<Found> files) {
        Map<String, FileGroup> indexes = new LinkedHashMap<>();
        Set<String> claimed = new LinkedHashSet<>();
        for (Found found : files) {
            String f = found.location();
            if (f.endsWith(INDEX_SUFFIX) && !indexes.containsKey(f)) {
                List<String> shards = new ArrayList<>();
                try {
                    for (Location shard : CheckpointFiles.locate(f).shards()) {
                        shards.add(shard.text());
                    }
                } catch (IOException | RuntimeException e) {
                    // the task reads the index again and reports this failure as the index's row
                    shards.clear();
                }
                claimed.addAll(shards);
                indexes.put(f, new FileGroup(f, shards));
            }
        }
        List<FileGroup> groups = new ArrayList<>(indexes.values());
        Set<String> seen = new LinkedHashSet<>();
        for (Found f : files) {
            String l = f.location();
            if (!indexes.containsKey(l) && !claimed.contains(l) && seen.add(l)) {
                groups.add(FileGroup.of(l, f.size()));
            }
        }
        return groups;
    }

    /**
     * Packs groups into partitions of about {@code filesPerPartition} files and, when tensor data is read, about
     * {@code maxPartitionBytes} bytes (sizes from the listing), never splitting a group.
     */
    static List<List<FileGroup>> pack(List<FileGroup> groups, int filesPerPartition, long maxPartitionBytes) {
        List<List<FileGroup>> partitions = new ArrayList<>();
        List<FileGroup> current = new ArrayList<>();
        int weight = 0;
        long bytes = 0;
        for (FileGroup g : groups) {
            long size = Math.max(0, g.bytes());
            if (weight > 0 && (weight + g.weight() > filesPerPartition || bytes + size > maxPartitionBytes)) {
                partitions.add(current);
                current = new ArrayList<>();
                weight = 0;
                bytes = 0;
            }
            current.add(g);
            weight += g.weight();
            bytes += size;
        }
        if (!current.isEmpty()) {
            partitions.add(current);
        }
        return partitions;
    }

    /** Packs groups by file count alone. */
    static List<List<FileGroup>> pack(List<FileGroup> groups, int filesPerPartition) {
        return pack(groups, filesPerPartition, Long.MAX_VALUE);
    }
}
