package dev.safetensors.cli;

import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.RepositoryListing;
import dev.safetensors.core.Sources;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeSet;

/**
 * Opens the sources of one command run. Local paths go to {@link Sources}; every other scheme goes to a provider
 * found once through {@link ServiceLoader} and kept for the whole run, because each backend builds its HTTP or SDK
 * client once per provider instance: a hundred shards then share one client and its connections instead of paying
 * for a hundred.
 *
 * <p>Local paths are checked before opening: a FIFO or a device would block or never end, so it is refused with
 * {@code NOT_A_FILE}. Thread-safe.
 */
final class SourceOpener {
    private static final URI S3_PROBE = URI.create("s3://bucket/key");

    private final RandomAccessSourceProvider s3;
    private List<RandomAccessSourceProvider> providers;

    /**
     * @param s3 the provider to use for {@code s3://} instead of the one {@link ServiceLoader} finds (built from the
     *           command line's S3 options), or {@code null}
     */
    SourceOpener(RandomAccessSourceProvider s3) {
        this.s3 = s3;
    }

    /** Loads the backends on the first remote source: a run over local files never loads a cloud SDK class. */
    private synchronized List<RandomAccessSourceProvider> providers() {
        if (providers == null) {
            List<RandomAccessSourceProvider> found = new ArrayList<>();
            for (RandomAccessSourceProvider p : ServiceLoader.load(RandomAccessSourceProvider.class)) {
                found.add(s3 != null && p.supports(S3_PROBE) ? s3 : p);
            }
            providers = List.copyOf(found);
        }
        return providers;
    }

    /**
     * @param location a local path or a URI
     * @return an open source; the caller closes it
     * @throws IOException if it cannot be opened; {@link SourceProblem} for a non-regular local file or a scheme
     *                     no backend serves
     */
    RandomAccessSource open(Location location) throws IOException {
        if (location.isLocal()) {
            Path path = localPath(location);
            if (Files.exists(path) && !Files.isDirectory(path) && !Files.isRegularFile(path)) {
                throw new SourceProblem("NOT_A_FILE", "is not a regular file (a FIFO, socket or device):"
                        + " pass a .safetensors file");
            }
            if (!Files.exists(path) && Files.isSymbolicLink(path)) {
                throw new NoSuchFileException(location.text(), null, "is a symbolic link to a file that does not"
                        + " exist: fix the link or pass the file itself");
            }
            return location.uri() == null ? Sources.open(path) : Sources.open(location.uri());
        }
        for (RandomAccessSourceProvider p : providers()) {
            if (p.supports(location.uri())) {
                return p.open(location.uri());
            }
        }
        if (location.scheme().equals("s3") && !S3Settings.available()) {
            throw new SourceProblem("UNSUPPORTED_SCHEME", "the S3 backend (dev.safetensors.s3 and the AWS SDK) is not"
                    + " on the module path; bin/safetensors adds it when the command line names an s3:// source");
        }
        throw new SourceProblem("UNSUPPORTED_SCHEME", "no storage backend reads '" + location.scheme()
                + ":' sources; supported: local paths, " + supportedSchemes());
    }

    /**
     * @return this opener as one provider, for the core's checkpoint location ({@code CheckpointFiles}): it opens as
     *         {@link #open} does and lists repositories through the provider of their scheme
     */
    RandomAccessSourceProvider asProvider() {
        return new RandomAccessSourceProvider() {
            @Override
            public boolean supports(URI uri) {
                return providers().stream().anyMatch(p -> p.supports(uri));
            }

            @Override
            public RandomAccessSource open(URI uri) throws IOException {
                return SourceOpener.this.open(Location.parse(uri.toString()));
            }

            @Override
            public Optional<RepositoryListing> listCheckpoints(URI location) throws IOException {
                for (RandomAccessSourceProvider p : providers()) {
                    if (p.supports(location)) {
                        return p.listCheckpoints(location);
                    }
                }
                return Optional.empty();
            }
        };
    }

    private static Path localPath(Location location) throws IOException {
        try {
            return location.path();
        } catch (IllegalArgumentException e) {
            throw new SourceProblem("INVALID_PATH", "is not a usable local path or file: URI (" + e.getMessage()
                    + ")");
        }
    }

    private String supportedSchemes() {
        TreeSet<String> schemes = new TreeSet<>();
        if (!S3Settings.available()) {
            // not loaded for this run, but one s3:// source on the command line loads it
            schemes.add("s3:");
        }
        for (String s : new String[] {"file", "s3", "gs", "http", "https", "hf"}) {
            URI probe = URI.create(s + "://x/y");
            if (providers().stream().anyMatch(p -> p.supports(probe))) {
                schemes.add(s + ":");
            }
        }
        return String.join(", ", schemes);
    }
}
