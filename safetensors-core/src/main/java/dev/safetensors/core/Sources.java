package dev.safetensors.core;

import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ServiceLoader;

/**
 * Opens a {@link RandomAccessSource} for a {@link Location} (or a path, or what a user typed) through the default {@link SourceRegistry}. Local files are
 * built in; every other scheme is served by a {@link RandomAccessSourceProvider} found with {@link ServiceLoader}
 * (on the module path through {@code provides}, on the class path through {@code META-INF/services}), so adding
 * {@code safetensors-s3}, {@code safetensors-gcs} or {@code safetensors-http} to an application is all it takes to
 * open {@code s3://}, {@code gs://} or {@code https://} sources.
 *
 * <p>The default registry is built on the first source opened and kept for the life of the JVM: each provider holds
 * a client (an {@code S3Client}, a GCS {@code Storage}, an {@code HttpClient}) that all the sources it opens share,
 * with their connections and credentials, configured from the environment. Programs that need their own clients or
 * settings, or want to close them, build a {@link SourceRegistry} instead.
 *
 * <p>Thread-safe.
 */
public final class Sources {
    private Sources() {
    }

    /**
     * @param location a location: a local path, or a URI some installed provider serves
     * @return an open source ({@link SourceRegistry#open(Location)}): a local one without building the default
     *         registry, any other from the default registry
     * @throws IOException if it cannot be opened; an {@link dev.safetensors.InvalidLocationException} with
     *                     {@code UNSUPPORTED_SCHEME} if no installed provider supports its scheme
     */
    public static RandomAccessSource open(Location location) throws IOException {
        return (location.isLocal() ? Local.REGISTRY : defaultRegistry()).open(location);
    }

    /**
     * Opens a local file by its {@link Path}, as {@link SourceRegistry#open(Path)} does.
     *
     * @param path a local file
     * @return an open source
     * @throws IOException if the file cannot be opened
     */
    public static RandomAccessSource open(Path path) throws IOException {
        return Local.REGISTRY.open(path);
    }

    /**
     * Opens what a user typed: a URI with a scheme of two or more letters ({@code s3://b/k}, {@code https://...},
     * {@code file:/x}), or else a local path (so {@code C:\m.safetensors} and {@code model.safetensors} are paths).
     *
     * @param location a URI or a path
     * @return an open source
     * @throws IOException if it cannot be opened
     */
    public static RandomAccessSource open(String location) throws IOException {
        return open(Location.parse(location));
    }

    /**
     * The rule {@link #open(String)} follows, {@link Location#parse}'s: a location is a URI when it starts with a
     * scheme of two or more ASCII letters (then letters, digits, {@code +}, {@code -} or {@code .}) and parses as a
     * URI; anything else is a local path.
     *
     * @param location what a user typed
     * @return the URI it names, or {@code null} when it is a plain local path
     */
    public static URI asUri(String location) {
        return Location.parse(location).uri().orElse(null);
    }

    /**
     * @return the registry {@code open} uses: every installed provider, created once and never closed; it also lists
     *         folders and prefixes ({@link SourceRegistry#list})
     */
    public static SourceRegistry registry() {
        return defaultRegistry();
    }

    /** @return the registry {@code open} uses: every installed provider, created once and never closed */
    static SourceRegistry defaultRegistry() {
        return Installed.REGISTRY;
    }

    /** Local files only: no provider is loaded to open a local file. */
    private static final class Local {
        static final SourceRegistry REGISTRY = SourceRegistry.builder().build();
    }

    /** Built on first use: a provider per backend for the life of the class, so that each client is built once. */
    private static final class Installed {
        static final SourceRegistry REGISTRY = SourceRegistry.builder().installedProviders().build();
    }
}
