package dev.safetensors.gcs;

import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import dev.safetensors.ErrorCode;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.StorageException;
import dev.safetensors.spi.RemotePolicy;

import java.io.IOException;
import java.util.Objects;

/**
 * Opens {@link GcsSource}s for {@code gs://bucket/object} URIs. A generation may be pinned with
 * {@code gs://bucket/object#1712345678901234} or {@code gs://bucket/object?generation=1712345678901234}; no other
 * query parameter is accepted. The object name is the percent-decoded path, so {@code gs://b/a%20b} is object
 * {@code a b}.
 *
 * <p>Found by {@link java.util.ServiceLoader}; the no-argument constructor creates, on the first {@link #open}, a
 * client with application default credentials, or no credentials and the emulator at {@code STORAGE_EMULATOR_HOST}
 * when that variable is set, and {@link #close()} closes it. A {@code Storage} passed in is never closed here.
 * Opening makes no request. Thread-safe.
 */
public final class GcsSourceProvider implements RandomAccessSourceProvider, AutoCloseable {
    private final RemotePolicy policy;
    private final ProviderStorage storage;
    private Storage listingStorage;

    /** Uses a client of its own, created on the first {@link #open}. */
    public GcsSourceProvider() {
        this.policy = RemotePolicy.DEFAULT;
        this.storage = ProviderStorage.createdOnFirstUse();
    }

    /**
     * @param storage the HTTP/JSON client to read through; it is not closed by the sources nor by this provider
     */
    public GcsSourceProvider(Storage storage) {
        this(storage, RemotePolicy.DEFAULT);
    }

    /**
     * @param storage the HTTP/JSON client to read through; it is not closed by the sources nor by this provider
     * @param policy  retries and deadlines of every source
     */
    public GcsSourceProvider(Storage storage, RemotePolicy policy) {
        this.storage = ProviderStorage.given(storage);
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    /** @return whether the location is a hierarchical URI with scheme {@code gs} */
    @Override
    public boolean supports(Location location) {
        return location.uri().filter(GcsUri::isGcs).isPresent();
    }

    /**
     * @throws IOException an {@link dev.safetensors.InvalidLocationException}
     *                     ({@link dev.safetensors.ErrorCode#INVALID_SOURCE}) if the URI names no bucket or object,
     *                     carries a malformed generation or another query
     */
    @Override
    public RandomAccessSource open(Location location) throws IOException {
        GcsUri parsed = GcsUri.parse(location.requireUri());
        return GcsSource.open(storage.get(), parsed, policy);
    }

    /**
     * Lists a {@code gs://BUCKET/PREFIX/} with {@code objects.list}: ceil(N / page size) requests for N objects,
     * each page retried by this provider's {@link RemotePolicy}. The listing goes through a copy of the client with
     * the SDK's own retries left out (one attempt per call), as reads do, so that attempts do not multiply.
     *
     * @throws IOException {@link ErrorCode#INVALID_SOURCE} if the URI names no bucket
     */
    @Override
    public Listing list(Location prefix, ListOptions options) throws IOException {
        return new GcsPrefixListing(listingStorage(), prefix, options, policy);
    }

    /**
     * Closes the client this provider created, if any, and the listings' copy of the client; a client passed in
     * stays open. Idempotent.
     *
     * @throws IOException if a client fails to close
     */
    @Override
    public synchronized void close() throws IOException {
        Storage derived = listingStorage;
        listingStorage = null;
        try {
            if (derived != null) {
                ProviderStorage.closeClient(derived);
            }
        } finally {
            storage.close();
        }
    }

    /** @return the client's copy without the SDK's retries, made once and closed by {@link #close()} */
    private synchronized Storage listingStorage() throws StorageException {
        if (listingStorage == null) {
            StorageOptions options = storage.get().getOptions();
            listingStorage = options.toBuilder()
                    .setRetrySettings(options.getRetrySettings().toBuilder().setMaxAttempts(1).build())
                    .build()
                    .getService();
        }
        return listingStorage;
    }
}
