package dev.safetensors.cli.backends;

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
import java.util.List;
import java.util.Optional;

/**
 * A {@link Backend} that is loaded the first time a location needs it: until then it answers
 * {@link #supports} from the schemes the backend declares, without loading a class of it; the first call that needs
 * the backend itself builds its layer and its providers (with the run's {@link S3Settings}), and every call after
 * that goes to them. So a run over local files, or over {@code https}, never scans an SDK's jars, and a run that
 * reads {@code az://} locations from standard input loads the Azure backend, and only it, when the first one comes.
 *
 * <p>Every call of the provider interface is forwarded here and nowhere else in the command. A backend that cannot
 * be loaded fails every location it declares with the same coded failure, without being tried again. Thread-safe.
 */
final class BackendProvider implements RandomAccessSourceProvider {
    private final Backend backend;
    private final S3Settings settings;
    private Backend.Loaded loaded;
    private StorageException failure;

    /**
     * @param backend  the backend to load on first use
     * @param settings the S3 options its providers are constructed with
     */
    BackendProvider(Backend backend, S3Settings settings) {
        this.backend = backend;
        this.settings = settings;
    }

    /** @return the backend behind this provider */
    Backend backend() {
        return backend;
    }

    @Override
    public boolean supports(Location location) {
        Backend.Loaded l = loadedBackend();
        return l == null ? backend.declares(location.scheme())
                : l.providers().stream().anyMatch(p -> p.supports(location));
    }

    /**
     * @param location a location
     * @return whether the backend may write it: before loading, whether it declares the scheme; after, whether one
     *         of its writers supports it
     */
    boolean writes(Location location) {
        Backend.Loaded l = loadedBackend();
        return l == null ? backend.declares(location.scheme())
                : l.writers().stream().anyMatch(w -> w.supports(location));
    }

    /**
     * Loads the backend if need be and returns its writer of a location.
     *
     * @param location where an object is to be written
     * @return the writer
     * @throws IOException if the backend cannot be loaded, or has no writer for the location
     *                     ({@link ErrorCode#UNSUPPORTED_SCHEME})
     */
    ObjectWriterProvider writer(Location location) throws IOException {
        for (ObjectWriterProvider w : load(location).writers()) {
            if (w.supports(location)) {
                return w;
            }
        }
        throw new InvalidLocationException(ErrorCode.UNSUPPORTED_SCHEME, "the " + backend.name() + " backend does not"
                + " write '" + location.scheme() + ":' objects");
    }

    @Override
    public RandomAccessSource open(Location location) throws IOException {
        return provider(location).open(location);
    }

    @Override
    public Optional<RepositoryListing> listCheckpoints(Location location) throws IOException {
        return provider(location).listCheckpoints(location);
    }

    /**
     * {@inheritDoc} A sibling is asked for a file already read, so the backend is loaded; were it not loadable, the
     * file could not have been read, and the default placement is the answer.
     */
    @Override
    public Location sibling(Location file, String name, SourceIdentity identity) {
        try {
            return provider(file).sibling(file, name, identity);
        } catch (IOException e) {
            return file.sibling(name);
        }
    }

    @Override
    public Listing list(Location prefix, ListOptions options) throws IOException {
        return provider(prefix).list(prefix, options);
    }

    private synchronized Backend.Loaded loadedBackend() {
        return loaded;
    }

    private RandomAccessSourceProvider provider(Location location) throws IOException {
        for (RandomAccessSourceProvider p : load(location).providers()) {
            if (p.supports(location)) {
                return p;
            }
        }
        throw new InvalidLocationException(ErrorCode.UNSUPPORTED_SCHEME, "the " + backend.name() + " backend does not"
                + " serve this '" + location.scheme() + ":' location");
    }

    private synchronized Backend.Loaded load(Location location) throws IOException {
        if (loaded == null) {
            if (failure == null) {
                try {
                    loaded = settings.construct(backend::load);
                } catch (IOException e) {
                    failure = e instanceof StorageException s ? s : new StorageException(ErrorCode.UNSUPPORTED_SCHEME,
                            location.scheme() + ":", "the " + backend.name() + " backend cannot be loaded: "
                            + e.getMessage(), e);
                }
            }
            if (failure != null) {
                // a new exception per location, its cause the first failure
                throw new StorageException(failure.code(), location.scheme() + ":", failure.detail(), failure);
            }
        }
        return loaded;
    }
}
