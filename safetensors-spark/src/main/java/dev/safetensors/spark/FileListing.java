package dev.safetensors.spark;

import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.core.CheckpointFiles;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Turns the locations a user gave into the files to read, once per scan, on the driver.
 *
 * <p>A local folder is listed with {@code java.nio} (one directory read per folder, never a process or a request
 * per file, as Hadoop's local {@code listFiles} does); its files are kept when their name matches
 * {@code pathGlobFilter}. A remote location is an object: the storage backends have no listing call, so a remote
 * "folder" ending in {@code /} is refused with a message pointing at
 * {@link SafetensorsSpark#readHeaders(org.apache.spark.sql.SparkSession, org.apache.spark.sql.Dataset)}.
 * A file named explicitly is read whatever its name, and one that does not exist becomes a row with
 * {@code NOT_FOUND}, as any other unreadable file.
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

    static List<FileGroup> list(List<String> locations, ScanOptions options) {
        LISTINGS.incrementAndGet();
        PathMatcher glob = FileSystems.getDefault().getPathMatcher("glob:" + options.pathGlobFilter());
        List<String> files = new ArrayList<>();
        for (String given : locations) {
            String location = Locations.normalize(given);
            Path local = Locations.localPath(location);
            if (local != null && Files.isDirectory(local)) {
                try {
                    listFolder(local, glob, options, files);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot list " + local, e);
                }
            } else if (local == null && location.endsWith("/")) {
                throw new IllegalArgumentException("cannot list the remote prefix " + location + ": the storage"
                        + " backends read objects and have no listing call; give object locations, or pass an"
                        + " inventory to SafetensorsSpark.readHeaders");
            } else {
                files.add(location);
            }
        }
        return options.expandIndex() ? expand(files) : files.stream().distinct().map(FileGroup::of).toList();
    }

    private static void listFolder(Path folder, PathMatcher glob, ScanOptions options, List<String> out)
            throws IOException {
        List<Path> found = new ArrayList<>();
        if (options.recursiveFileLookup()) {
            try (Stream<Path> walk = Files.walk(folder)) {
                walk.filter(p -> wanted(p, glob, options) && Files.isRegularFile(p)).forEach(found::add);
            }
        } else {
            try (DirectoryStream<Path> dir = Files.newDirectoryStream(folder, p -> wanted(p, glob, options))) {
                for (Path p : dir) {
                    if (Files.isRegularFile(p)) {
                        found.add(p);
                    }
                }
            }
        }
        found.stream().sorted().map(Path::toString).forEach(out::add);
    }

    private static boolean wanted(Path p, PathMatcher glob, ScanOptions options) {
        Path name = p.getFileName();
        return name != null && (glob.matches(name)
                || (options.expandIndex() && name.toString().endsWith(INDEX_SUFFIX)));
    }

    private static List<FileGroup> expand(List<String> files) {
        Map<String, FileGroup> indexes = new LinkedHashMap<>();
        Set<String> claimed = new LinkedHashSet<>();
        for (String f : files) {
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
        files.stream().distinct().filter(f -> !indexes.containsKey(f) && !claimed.contains(f))
                .map(FileGroup::of).forEach(groups::add);
        return groups;
    }

    /** Packs groups into partitions of about {@code filesPerPartition} files, never splitting a group. */
    static List<List<FileGroup>> pack(List<FileGroup> groups, int filesPerPartition) {
        List<List<FileGroup>> partitions = new ArrayList<>();
        List<FileGroup> current = new ArrayList<>();
        int weight = 0;
        for (FileGroup g : groups) {
            if (weight > 0 && weight + g.weight() > filesPerPartition) {
                partitions.add(current);
                current = new ArrayList<>();
                weight = 0;
            }
            current.add(g);
            weight += g.weight();
        }
        if (!current.isEmpty()) {
            partitions.add(current);
        }
        return partitions;
    }
}
