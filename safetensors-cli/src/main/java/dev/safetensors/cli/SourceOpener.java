package dev.safetensors.cli;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.Limits;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.core.SafetensorsClient;
import dev.safetensors.core.ReadOptions;
import dev.safetensors.core.SourceRegistry;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ServiceLoader;
import java.util.TreeSet;

/**
 * Opens the sources of one command run through one {@link SourceRegistry}: the command's own S3 provider (built from
 * the command line's S3 options) first, then the providers found through {@link ServiceLoader}. The registry is built
 * once, on the first remote location, and kept for the whole run, because each backend builds its HTTP or SDK client
 * once per provider instance: a hundred shards then share one client and its connections. A run over local files
 * never loads a cloud SDK class: local locations are served by a registry of local files alone.
 *
 * <p>What cannot name a source at all is refused before anything is opened: an empty path, and a
 * {@code scheme://} location that is not a valid URI (nothing after the scheme, spaces), which would otherwise be
 * looked for as a local file. The rule that only regular files are read is the library's ({@code FileSource}).
 * Thread-safe.
 */
final class SourceOpener {
    /** Serves local paths and {@code file:} URIs only. */
    private static final SourceRegistry LOCAL = SourceRegistry.builder().build();

    private final RandomAccessSourceProvider s3;
    private SourceRegistry registry;

    /**
     * @param s3 the provider to use for {@code s3://} instead of the one {@link ServiceLoader} finds (built from the
     *           command line's S3 options), or {@code null}
     */
    SourceOpener(RandomAccessSourceProvider s3) {
        this.s3 = s3;
    }

    /** @return the run's registry of every provider, built on first use */
    synchronized SourceRegistry registry() {
        if (registry == null) {
            SourceRegistry.Builder builder = SourceRegistry.builder();
            if (s3 != null) {
                builder.provider(s3);
            }
            registry = builder.installedProviders().build();
        }
        return registry;
    }

    /**
     * @param location what a checkpoint will be located from
     * @param limits   the policy for headers, indexes, configs and listings
     * @param read     how remote tensors are fetched
     * @return the options the library's checkpoint layer opens it with: this run's registry (or the local one, for a
     *         local location, so no backend is loaded)
     */
    SafetensorsClient options(Location location, Limits limits, ReadOptions read) {
        return SafetensorsClient.builder().registry(location.isLocal() ? LOCAL : registry()).limits(limits)
                .readOptions(read).build();
    }

    /**
     * @param location a local path or a URI
     * @return an open source; the caller closes it
     * @throws IOException if it cannot be opened; {@link InvalidLocationException} for a location that names
     *                     nothing or a scheme no backend serves
     */
    RandomAccessSource open(Location location) throws IOException {
        checkNamesSomething(location);
        if (location.isLocal()) {
            Path path = localPath(location);
            return location.uri().isEmpty() ? LOCAL.open(UndecodableName.resolve(path)) : LOCAL.open(location);
        }
        if (registry().providers().stream().noneMatch(p -> p.supports(location))) {
            if (location.scheme().equals("s3") && !S3Settings.available()) {
                throw new InvalidLocationException(ErrorCode.UNSUPPORTED_SCHEME, "the S3 backend (dev.safetensors.s3"
                        + " and the AWS SDK) is not on the module path; bin/safetensors adds it when the command line"
                        + " names an s3:// source");
            }
            throw new InvalidLocationException(ErrorCode.UNSUPPORTED_SCHEME, "no storage backend reads '"
                    + location.scheme() + ":' sources; supported: local paths, " + supportedSchemes());
        }
        return registry().open(location);
    }

    /**
     * @param location a SOURCE argument
     * @throws InvalidLocationException if it is empty, or written as a URI that does not parse
     */
    static void checkNamesSomething(Location location) throws InvalidLocationException {
        if (location.text().isEmpty()) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, "empty path: name a .safetensors file");
        }
        if (location.uri().isEmpty() && location.looksLikeUri()) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, "not a valid URI: a location after"
                    + " the scheme is required, without spaces (encode a space as %20)");
        }
    }

    private static Path localPath(Location location) throws IOException {
        try {
            return location.path();
        } catch (IllegalArgumentException e) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, "is not a usable local path or file: URI ("
                    + e.getMessage() + ")");
        }
    }

    private String supportedSchemes() {
        TreeSet<String> schemes = new TreeSet<>();
        if (!S3Settings.available()) {
            // not loaded for this run, but one s3:// source on the command line loads it
            schemes.add("s3:");
        }
        for (String s : new String[] {"file", "s3", "gs", "http", "https", "hf"}) {
            Location probe = Location.parse(s + "://x/y");
            if (registry().providers().stream().anyMatch(p -> p.supports(probe))) {
                schemes.add(s + ":");
            }
        }
        return String.join(", ", schemes);
    }
}
