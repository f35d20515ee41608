package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

import java.io.IOException;
import java.net.URI;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Reads and lists the locations this module reaches through Hadoop's {@link FileSystem} ({@code hdfs://}, and any
 * scheme the user configured that none of the library's backends serve): the read side of
 * {@link HadoopObjectWriter}, claiming exactly the locations it claims, so that a write's commit can list the output
 * and read the headers it wrote back through the registry.
 *
 * <ul>
 *   <li>{@link #open} gives a {@link HadoopSource}: positioned reads of exactly the range asked for, the size from
 *       the file's status, the name without user information;</li>
 *   <li>{@link #list} gives a {@link HadoopListing}, entries named below the prefix as it was written.</li>
 * </ul>
 *
 * <p>A location of a Hadoop scheme is malformed ({@link ErrorCode#INVALID_SOURCE}) when it is not a hierarchical URI
 * with a path, or carries a query or a fragment, which a Hadoop path cannot hold. Filesystems come from Hadoop's
 * cache ({@link FileSystem#get}). Registered through {@link java.util.ServiceLoader}; stateless and thread-safe.
 */
public final class HadoopSourceProvider implements RandomAccessSourceProvider {
    private final Supplier<Configuration> conf;

    /**
     * Creates the provider over the configuration this module reads with: the driver's, once a scan or write
     * installed it, else Hadoop's defaults. {@link java.util.ServiceLoader} calls this.
     */
    public HadoopSourceProvider() {
        this.conf = HadoopFiles::conf;
    }

    /** @param conf the configuration that names the filesystems' implementations and credentials */
    public HadoopSourceProvider(Configuration conf) {
        Objects.requireNonNull(conf, "conf");
        this.conf = () -> conf;
    }

    /**
     * @return whether the location is read through Hadoop and Hadoop has a filesystem for its scheme (the rule
     *         {@link HadoopObjectWriter#supports} follows)
     */
    @Override
    public boolean supports(Location location) {
        return HadoopFiles.hasFileSystem(location, conf.get());
    }

    /**
     * @throws IOException {@link ErrorCode#INVALID_SOURCE} for a malformed location; {@link ErrorCode#NOT_FOUND},
     *                     {@link ErrorCode#ACCESS_DENIED}, {@link ErrorCode#NOT_A_FILE} as the filesystem reports;
     *                     {@link ErrorCode#IO_ERROR} otherwise
     */
    @Override
    public RandomAccessSource open(Location location) throws IOException {
        return HadoopSource.open(hadoopUri(location), conf.get());
    }

    /**
     * @throws IOException {@link ErrorCode#INVALID_SOURCE} for a malformed location; {@link ErrorCode#NOT_FOUND}
     *                     for an absent folder, or the filesystem's coded failure
     */
    @Override
    public Listing list(Location prefix, ListOptions options) throws IOException {
        return HadoopListing.open(prefix, options.recursive(), conf.get());
    }

    /**
     * @param location a location of a Hadoop scheme
     * @return its URI, as a Hadoop path takes it
     * @throws InvalidLocationException {@link ErrorCode#INVALID_SOURCE} when it is no hierarchical URI with a path,
     *                                  or has a query or fragment
     */
    static URI hadoopUri(Location location) throws InvalidLocationException {
        URI uri = location.requireUri();
        if (uri.isOpaque() || uri.getRawPath() == null || uri.getRawPath().isEmpty() || uri.getRawQuery() != null
                || uri.getRawFragment() != null) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, location.display() + ": a Hadoop path is"
                    + " SCHEME://[AUTHORITY]/PATH, with no query or fragment");
        }
        return uri;
    }
}
