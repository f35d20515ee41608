package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.RepositoryListing;
import dev.safetensors.SourceIdentity;
import dev.safetensors.StorageException;
import dev.safetensors.spi.ObjectWriterProvider;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Opens {@link RandomAccessSource}s through a fixed, ordered list of {@link RandomAccessSourceProvider}s: the first
 * provider that {@linkplain RandomAccessSourceProvider#supports supports} a {@link Location} opens it. Local paths and
 * {@code file:} URIs are always served.
 *
 * <p>Built with {@link #builder()}: providers the application constructs itself (for example an S3 provider over
 * its own {@code S3Client}) come first, in the order given, then, if asked for, those found with
 * {@link ServiceLoader}, skipping any whose class the application already supplied (so no second client is built).
 *
 * <p>{@link #close()} closes the providers the registry created itself, and never the ones passed to
 * {@link Builder#provider}: their clients belong to the application. Sources already opened are unaffected (each
 * is closed by whoever opened it); opening after close fails.
 *
 * <p>{@link Sources} is the default registry: every installed provider, created on first use and kept for the life
 * of the JVM. Thread-safe.
 */
public final class SourceRegistry implements AutoCloseable {
    /** Serves every local location, whatever the providers: stateless. */
    private static final FileSourceProvider LOCAL_FILES = new FileSourceProvider();
    /** Writes every local location, whatever the writers: stateless. */
    private static final FileObjectWriter LOCAL_WRITES = new FileObjectWriter();
    private final List<RandomAccessSourceProvider> providers;
    private final List<RandomAccessSourceProvider> owned;
    private final List<ObjectWriterProvider> writers;
    private final List<ObjectWriterProvider> ownedWriters;
    private volatile boolean closed;

    private SourceRegistry(List<RandomAccessSourceProvider> providers, List<RandomAccessSourceProvider> owned,
                           List<ObjectWriterProvider> writers, List<ObjectWriterProvider> ownedWriters) {
        this.providers = List.copyOf(providers);
        this.owned = List.copyOf(owned);
        this.writers = List.copyOf(writers);
        this.ownedWriters = List.copyOf(ownedWriters);
    }

    /**
     * @param created providers as if the registry had created them: asked in order, closed by {@link #close()}
     * @return a registry owning them
     */
    static SourceRegistry owning(List<RandomAccessSourceProvider> created) {
        return new SourceRegistry(created, created, List.of(), List.of());
    }

    /** @return a builder with no providers (local files are always served) */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Opens a location: a local path (or {@code file:} URI) as a local file, any other URI through the first provider
     * that {@linkplain RandomAccessSourceProvider#supports supports} it.
     *
     * @param location a location
     * @return an open source; the caller closes it
     * @throws IOException if it cannot be opened, or the registry is closed; an {@link InvalidLocationException}
     *                     with {@link ErrorCode#INVALID_SOURCE} for a local path the file system cannot name, with
     *                     {@link ErrorCode#UNSUPPORTED_SCHEME} if no provider supports its scheme
     */
    public RandomAccessSource open(Location location) throws IOException {
        ensureOpen(location.display());
        if (location.isLocal()) {
            return LOCAL_FILES.open(location);
        }
        return provider(location).orElseThrow(() -> unsupported(location, "reads", "sources")).open(location);
    }

    /**
     * Opens what a user typed, by the rule of {@link Location#parse(String)}.
     *
     * @param location a URI or a path
     * @return an open source
     * @throws IOException as {@link #open(Location)}
     */
    public RandomAccessSource open(String location) throws IOException {
        return open(Location.parse(location));
    }

    /**
     * Opens a local file by its {@link Path}, not by its text: a name the platform's charset cannot decode (which a
     * {@link Location}, holding text, cannot name) opens as it is.
     *
     * @param path a local file
     * @return an open source
     * @throws IOException if the file cannot be opened, or the registry is closed
     */
    public RandomAccessSource open(Path path) throws IOException {
        ensureOpen(path.toString());
        return FileSource.open(path);
    }

    /**
     * Lists the checkpoints a repository location holds, through the first provider that supports it
     * ({@link RandomAccessSourceProvider#listCheckpoints}).
     *
     * @param location a location
     * @return the listing; empty for a local path, or when the location is not a repository for its provider
     * @throws IOException if the registry is closed or the listing fails
     */
    public Optional<RepositoryListing> listCheckpoints(Location location) throws IOException {
        if (location.isLocal()) {
            return Optional.empty();
        }
        ensureOpen(location.display());
        Optional<RandomAccessSourceProvider> provider = provider(location);
        return provider.isPresent() ? provider.get().listCheckpoints(location) : Optional.empty();
    }

    /**
     * The location of a file named by another, such as a shard named by an index, as the provider of
     * {@code file} places it ({@link RandomAccessSourceProvider#sibling}): beside it, and for storage with moving
     * revisions, pinned to the revision {@code file} was read at.
     *
     * @param file     a location read with identity {@code identity}
     * @param name     a plain file name
     * @param identity what the source of {@code file} reported
     * @return the sibling's location
     * @throws IllegalArgumentException if the name is not a plain file name
     */
    public Location sibling(Location file, String name, SourceIdentity identity) {
        Optional<RandomAccessSourceProvider> provider = file.isLocal() ? Optional.empty() : provider(file);
        return provider.isPresent() ? provider.get().sibling(file, name, identity) : file.sibling(name);
    }

    /**
     * Lists a folder or a prefix through the provider that serves its scheme (a local folder for a path or a
     * {@code file:} URI), lazily, page by page: see {@link Listing}. The command and the Spark source list through
     * here, never naming a backend.
     *
     * @param prefix  the folder or prefix; one not ending in {@code /} is listed as if it did
     * @param options recursion, page size and bounds
     * @return the listing; the caller closes it
     * @throws IOException {@link ErrorCode#NOT_LISTABLE} for storage with no listing call ({@code http(s)}),
     *                     {@link ErrorCode#UNSUPPORTED_SCHEME} when no provider serves the scheme,
     *                     {@link ErrorCode#INVALID_SOURCE} for a URI that does not parse, or the first page's failure
     */
    public Listing list(Location prefix, ListOptions options) throws IOException {
        ensureOpen(prefix.display());
        if (prefix.isLocal()) {
            return LOCAL_FILES.list(prefix, options);
        }
        return provider(prefix).orElseThrow(() -> unsupported(prefix, "lists", "prefixes")).list(prefix, options);
    }

    /**
     * The writer of a location: local files for a local path (or {@code file:} URI), else the first
     * {@link ObjectWriterProvider} that {@linkplain ObjectWriterProvider#supports supports} it: the application's
     * ({@link Builder#writer}) in the order given, then those {@link ServiceLoader} finds when the registry was built
     * with {@link Builder#installedProviders()}.
     *
     * @param location where an object is to be written
     * @return its writer
     * @throws IOException an {@link InvalidLocationException} with {@link ErrorCode#UNSUPPORTED_SCHEME} if no
     *                     writer supports its scheme; a failure if the registry is closed
     */
    public ObjectWriterProvider writer(Location location) throws IOException {
        ensureOpen(location.display());
        if (location.isLocal()) {
            return LOCAL_WRITES;
        }
        for (ObjectWriterProvider w : writers) {
            if (w.supports(location)) {
                return w;
            }
        }
        throw unsupported(location, "writes", "objects", writers);
    }

    /** @return the first provider that supports a location that is not local, if any */
    private Optional<RandomAccessSourceProvider> provider(Location location) {
        for (RandomAccessSourceProvider p : providers) {
            if (p.supports(location)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    private InvalidLocationException unsupported(Location location, String does, String what) {
        return unsupported(location, does, what, providers);
    }

    private static InvalidLocationException unsupported(Location location, String does, String what,
                                                        List<?> providers) {
        // named by what is installed, never by a list of backends written here: core knows none of them
        StringBuilder installed = new StringBuilder();
        for (Object p : providers) {
            installed.append(installed.length() == 0 ? "" : ", ").append(p.getClass().getSimpleName());
        }
        return new InvalidLocationException(ErrorCode.UNSUPPORTED_SCHEME, "no storage backend " + does + " '"
                + location.scheme() + ":' " + what + "; local files are built in, and every other scheme needs the"
                + " backend module that serves it on the class or module path (installed: "
                + (installed.length() == 0 ? "none" : installed) + ")");
    }

    /** @return the providers in the order they are asked, the application's first */
    public List<RandomAccessSourceProvider> providers() {
        return providers;
    }

    /**
     * Closes every provider this registry created (those that are {@link AutoCloseable}; the installed writers
     * too), all of them even when one fails. Providers passed to {@link Builder#provider} and writers passed to
     * {@link Builder#writer} stay open. Idempotent.
     *
     * @throws IOException the first failure, with the others suppressed; one that is not an {@link IOException} is
     *                     wrapped in a {@link StorageException} with {@link ErrorCode#IO_ERROR}
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        IOException failure = null;
        List<Object> created = new ArrayList<>(owned);
        created.addAll(ownedWriters);
        for (Object p : created) {
            if (p instanceof AutoCloseable closeable) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    IOException io = e instanceof IOException x ? x : new StorageException(ErrorCode.IO_ERROR,
                            p.getClass().getName(), "closing the provider failed: " + e, e);
                    if (failure == null) {
                        failure = io;
                    } else {
                        failure.addSuppressed(io);
                    }
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void ensureOpen(String location) throws IOException {
        if (closed) {
            throw new StorageException(ErrorCode.IO_ERROR, location, "the source registry is closed");
        }
    }

    @Override
    public String toString() {
        return "SourceRegistry" + providers.stream().map(p -> p.getClass().getSimpleName()).toList();
    }

    /** Collects the providers of a {@link SourceRegistry}. Not thread-safe; build once. */
    public static final class Builder {
        private final List<RandomAccessSourceProvider> given = new ArrayList<>();
        private final List<ObjectWriterProvider> givenWriters = new ArrayList<>();
        private boolean installed;

        private Builder() {
        }

        /**
         * Adds a provider the application constructed; asked before every provider added after it and before the
         * installed ones. The registry never closes it.
         *
         * @param provider a provider
         * @return this builder
         */
        public Builder provider(RandomAccessSourceProvider provider) {
            if (provider == null) {
                throw new NullPointerException("provider");
            }
            given.add(provider);
            return this;
        }

        /**
         * Adds a writer the application constructed (for example an S3 writer over its own {@code S3Client});
         * asked before every writer added after it and before the installed ones, and used instead of an installed
         * writer of the same class. The registry never closes it.
         *
         * @param writer a writer
         * @return this builder
         */
        public Builder writer(ObjectWriterProvider writer) {
            if (writer == null) {
                throw new NullPointerException("writer");
            }
            givenWriters.add(writer);
            return this;
        }

        /**
         * Also uses every provider {@link ServiceLoader} finds (on the module path through {@code provides}, on
         * the class path through {@code META-INF/services}), after the application's own, except those whose class
         * the application already supplied. The registry creates them and closes them.
         *
         * @return this builder
         */
        public Builder installedProviders() {
            installed = true;
            return this;
        }

        /** @return the registry; local files are served even when no provider was added */
        public SourceRegistry build() {
            List<RandomAccessSourceProvider> all = new ArrayList<>(given);
            List<RandomAccessSourceProvider> owned = new ArrayList<>();
            List<ObjectWriterProvider> ownedWriters = new ArrayList<>();
            if (installed) {
                Set<String> suppliedWriters = givenWriters.stream().map(w -> w.getClass().getName())
                        .collect(Collectors.toSet());
                ServiceLoader.load(ObjectWriterProvider.class).stream()
                        .filter(found -> found.type() != FileObjectWriter.class
                                && !suppliedWriters.contains(found.type().getName()))
                        .forEach(found -> ownedWriters.add(found.get()));
                Set<String> supplied = given.stream().map(p -> p.getClass().getName()).collect(Collectors.toSet());
                ServiceLoader.load(RandomAccessSourceProvider.class).stream()
                        .filter(found -> !supplied.contains(found.type().getName()))
                        .forEach(found -> owned.add(found.get()));
            }
            if (all.stream().noneMatch(p -> p instanceof FileSourceProvider)
                    && owned.stream().noneMatch(p -> p instanceof FileSourceProvider)) {
                owned.add(new FileSourceProvider());
            }
            all.addAll(owned);
            List<ObjectWriterProvider> writers = new ArrayList<>(givenWriters);
            writers.addAll(ownedWriters);
            return new SourceRegistry(all, owned, writers, ownedWriters);
        }
    }
}
