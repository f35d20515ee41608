package dev.safetensors.cli;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.RepositoryListing;
import dev.safetensors.core.SourceRegistry;
import dev.safetensors.core.Sources;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeSet;

/**
 * Opens the sources of one command run. Local paths go to {@link Sources}; every other scheme goes to a
 * {@link SourceRegistry} of the providers found through {@link ServiceLoader}, built once and kept for the whole
 * run, because each backend builds its HTTP or SDK client once per provider instance: a hundred shards then share
 * one client and its connections instead of paying for a hundred.
 *
 * <p>What cannot name a source at all is refused before anything is opened: an empty path, and a
 * {@code scheme://} location that is not a valid URI (nothing after the scheme, spaces), which would otherwise be
 * looked for as a local file. The rule that only regular files are read is the library's ({@code FileSource}).
 * Thread-safe.
 */
final class SourceOpener {
    private final RandomAccessSourceProvider s3;
    private SourceRegistry registry;

    /**
     * @param s3 the provider to use for {@code s3://} instead of the one {@link ServiceLoader} finds (built from the
     *           command line's S3 options), or {@code null}
     */
    SourceOpener(RandomAccessSourceProvider s3) {
        this.s3 = s3;
    }

    /**
     * Builds the registry on the first remote source: a run over local files never loads a cloud SDK class. The
     * command's own S3 provider comes first, so the installed one is never created; the registry lives for the run.
     */
    /** @return the registry of this run, built on first use; it lists folders and prefixes */
    synchronized SourceRegistry registry() {
        providers();
        return registry;
    }

    private synchronized List<RandomAccessSourceProvider> providers() {
        if (registry == null) {
            SourceRegistry.Builder builder = SourceRegistry.builder();
            if (s3 != null) {
                builder.provider(s3);
            }
            registry = builder.installedProviders().build();
        }
        return registry.providers();
    }

    /**
     * @param location a local path or a URI
     * @return an open source; the caller closes it
     * @throws IOException if it cannot be opened; {@link InvalidLocationException} for a location that names
     *                     nothing or a scheme no backend serves
     */
    RandomAccessSource open(Location location) throws IOException {
        if (location.text().isEmpty()) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, "empty path: name a .safetensors file");
        }
        if (location.uri() == null && location.looksLikeUri()) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, "not a valid URI: a location after"
                    + " the scheme is required, without spaces (encode a space as %20)");
        }
        if (location.isLocal()) {
            Path path = localPath(location);
            return location.uri() == null ? Sources.open(UndecodableName.resolve(path))
                    : Sources.open(location.uri());
        }
        for (RandomAccessSourceProvider p : providers()) {
            if (p.supports(location.uri())) {
                return p.open(location.uri());
            }
        }
        if (location.scheme().equals("s3") && !S3Settings.available()) {
            throw new InvalidLocationException(ErrorCode.UNSUPPORTED_SCHEME, "the S3 backend (dev.safetensors.s3 and the AWS SDK) is not"
                    + " on the module path; bin/safetensors adds it when the command line names an s3:// source");
        }
        throw new InvalidLocationException(ErrorCode.UNSUPPORTED_SCHEME, "no storage backend reads '" + location.scheme()
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
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, "is not a usable local path or file: URI (" + e.getMessage()
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
