package dev.safetensors.spark;

import dev.safetensors.ListEntry;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.core.Sources;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

import java.io.IOException;
import java.net.URI;
import java.util.function.Consumer;

/**
 * The locations this source reads through Hadoop's {@link FileSystem} instead of the library's backends: every URI
 * whose scheme no installed backend serves ({@code hdfs://}, {@code wasbs://}, {@code abfss://} when the Azure
 * backend is not on the class path, a connector the user configured). Local paths, {@code file:}, {@code s3://}/{@code s3a://}, {@code gs://}, {@code https://} and
 * {@code hf://} stay with the backends, which verify ranges and pin versions.
 *
 * <p>The Hadoop configuration is the driver's, shipped with the reader and writer factories and installed once per
 * task ({@link #use}); a JVM without one (a unit test) uses {@code new Configuration()}. It names the filesystems
 * {@link HadoopSourceProvider} and {@link HadoopObjectWriter} use, and the {@code fs.s3a.*} settings of
 * {@link S3aSettings}.
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
        // this module's own Hadoop provider is installed too: it claims what this says, so it is not asked
        return Sources.registry().providers().stream()
                .noneMatch(p -> !(p instanceof HadoopSourceProvider) && p.supports(location));
    }

    /**
     * What {@link HadoopSourceProvider} reads and {@link HadoopObjectWriter} writes: a location {@link #handles
     * handled} here whose scheme Hadoop has a filesystem for, so that a scheme nobody configured is reported by the
     * registry as unsupported rather than failing in Hadoop.
     *
     * @param location a location
     * @param conf     the configuration that names the filesystems
     * @return whether it is read and written through Hadoop
     */
    static boolean hasFileSystem(Location location, Configuration conf) {
        if (!handles(location)) {
            return false;
        }
        try {
            FileSystem.getFileSystemClass(location.scheme(), conf);
            return true;
        } catch (IOException | RuntimeException e) {
            // no fs.SCHEME.impl and no service-loaded filesystem, or a configured class that is not there
            return false;
        }
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
     * ({@link HadoopListing}).
     *
     * @param folder    the folder
     * @param recursive whether to descend
     * @param sink      receives the entries
     * @throws IOException a coded failure
     */
    static void list(String folder, boolean recursive, Consumer<ListEntry> sink) throws IOException {
        try (Listing listing = HadoopListing.open(Location.parse(folder), recursive, conf())) {
            while (listing.hasNext()) {
                sink.accept(listing.next());
            }
        }
    }
}
