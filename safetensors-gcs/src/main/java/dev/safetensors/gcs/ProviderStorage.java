package dev.safetensors.gcs;

import com.google.cloud.storage.Storage;

import dev.safetensors.StorageException;

import java.io.IOException;
import java.util.Objects;

/**
 * The {@code Storage} client a provider of this backend, reader or writer, works through: one passed in, used and
 * never closed here, or one created on first use by {@link DefaultStorage} (application default credentials, or the
 * emulator at {@code STORAGE_EMULATOR_HOST}) and closed with the provider. Thread-safe.
 */
final class ProviderStorage {
    private final boolean owned;
    private Storage storage;

    private ProviderStorage(Storage storage, boolean owned) {
        this.storage = storage;
        this.owned = owned;
    }

    /** @return a client created from the environment on the first {@link #get()} */
    static ProviderStorage createdOnFirstUse() {
        return new ProviderStorage(null, true);
    }

    /**
     * @param storage the client to use, which stays open when the provider closes
     * @return that client
     */
    static ProviderStorage given(Storage storage) {
        return new ProviderStorage(Objects.requireNonNull(storage, "storage"), false);
    }

    /**
     * @return the client, created now if this provider owns one and has not made it yet
     * @throws StorageException as {@link DefaultStorage#create} does
     */
    synchronized Storage get() throws StorageException {
        if (storage == null) {
            storage = DefaultStorage.create(System.getenv());
        }
        return storage;
    }

    /**
     * Closes the client if this provider created it; a client passed in stays open. Idempotent.
     *
     * @throws IOException if the client fails to close
     */
    synchronized void close() throws IOException {
        if (owned && storage != null) {
            try {
                closeClient(storage);
            } finally {
                storage = null;
            }
        }
    }

    /**
     * @param client a client to close
     * @throws IOException if it fails to close, with its message
     */
    static void closeClient(Storage client) throws IOException {
        try {
            client.close();
        } catch (Exception e) {
            throw new IOException("closing the Cloud Storage client failed: " + e.getMessage(), e);
        }
    }
}
