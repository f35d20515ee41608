package dev.safetensors.spark;

import dev.safetensors.ListEntry;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.core.Sources;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;

import java.io.IOException;
import java.net.URI;
import java.time.Instant;
import java.util.function.Consumer;

/**
 * The locations this source reads through Hadoop's {@link FileSystem} instead of the library's backends: every URI
 * whose scheme no installed backend serves ({@code hdfs://}, {@code wasbs://}, {@code abfss://} when the Azure
 * backend is not on the class path, a connector the user configured). Local paths, {@code file:}, {@code s3://}/{@code s3a://}, {@code gs://}, {@code https://} and
 * {@code hf://} stay with the backends, which verify ranges and pin versions.
 *
 * <p>The Hadoop configuration is the driver's, shipped with the reader factory and installed once per task
 * ({@link #use}); a JVM without one (a unit test) uses {@code new Configuration()}.
 */
final class HadoopFiles {
    /** The schemes of the library's backends: read by them or refused with their code, never through Hadoop. */
    private static final java.util.Set<String> OURS = java.util.Set.of("file", "s3", "gs", "http", "https", "hf");

    private static volatile Configuration conf;

    private HadoopFiles() {
    }

    /** @param shipped the configuration the driver captured, or {@code null} to keep the current one */
    static void use(HadoopConf shipped) {
        if (shipped != null) {
            conf = shipped.get();
        }
    }

    /** @param configuration the configuration to list and open with in this JVM */
    static void use(Configuration configuration) {
        conf = configuration;
    }

    /** @return the configuration installed by {@link #use}, or a default one if none was */
    static Configuration conf() {
        Configuration c = conf;
        if (c == null) {
            c = new Configuration();
            conf = c;
        }
        return c;
    }

    /**
     * @param location a location as the user wrote it (after {@code s3a://} became {@code s3://})
     * @return whether it is read through Hadoop
     */
    static boolean handles(String location) {
        return handles(Location.parse(location));
    }

    /**
     * The one rule for what goes through Hadoop, read here and written by {@link HadoopObjectWriter}: a URI whose
     * scheme is none of the library's and that no installed backend serves.
     *
     * @param location a location
     * @return whether it is read and written through Hadoop
     */
    static boolean handles(Location location) {
        if (location.uri().isEmpty() || OURS.contains(location.scheme())) {
            return false;
        }
        return Sources.registry().providers().stream().noneMatch(p -> p.supports(location));
    }

    /**
     * @param location a location {@link #handles handled} here
     * @return the open file
     * @throws IOException a coded failure
     */
    static RandomAccessSource open(String location) throws IOException {
        return HadoopSource.open(URI.create(location), conf());
    }

    /**
     * @param location a location {@link #handles handled} here
     * @return whether it names a folder; {@code false} when it does not exist (reading it then reports that)
     * @throws IOException a coded failure other than a missing path
     */
    static boolean isFolder(String location) throws IOException {
        URI uri = URI.create(location);
        try {
            Path path = new Path(uri);
            return path.getFileSystem(conf()).getFileStatus(path).isDirectory();
        } catch (java.io.FileNotFoundException e) {
            return false;
        } catch (IOException e) {
            throw HadoopSource.coded(dev.safetensors.spi.SourceNames.redact(uri), e);
        }
    }

    /**
     * Lists a folder of a Hadoop filesystem, one level or recursively, handing each entry over as it comes
     * ({@link FileSystem#listFiles} pages through remote stores). Subfolders are reported as
     * {@link ListEntry.Kind#FOLDER} one level down.
     *
     * @param folder    the folder
     * @param recursive whether to descend
     * @param sink      receives the entries
     * @throws IOException a coded failure
     */
    static void list(String folder, boolean recursive, Consumer<ListEntry> sink) throws IOException {
        URI uri = URI.create(folder);
        String name = dev.safetensors.spi.SourceNames.redact(uri);
        try {
            Path path = new Path(uri);
            FileSystem fs = path.getFileSystem(conf());
            if (recursive) {
                RemoteIterator<LocatedFileStatus> files = fs.listFiles(path, true);
                while (files.hasNext()) {
                    sink.accept(entry(files.next()));
                }
            } else {
                RemoteIterator<FileStatus> files = fs.listStatusIterator(path);
                while (files.hasNext()) {
                    sink.accept(entry(files.next()));
                }
            }
        } catch (IOException e) {
            throw HadoopSource.coded(name, e);
        }
    }

    private static ListEntry entry(FileStatus status) {
        Location at = Location.of(status.getPath().toUri());
        if (status.isDirectory()) {
            return ListEntry.special(at, ListEntry.Kind.FOLDER);
        }
        if (!status.isFile()) {
            return ListEntry.special(at, status.isSymlink() ? ListEntry.Kind.DANGLING_LINK : ListEntry.Kind.DEVICE);
        }
        return ListEntry.file(at, status.getLen(), null, Instant.ofEpochMilli(status.getModificationTime()));
    }
}
