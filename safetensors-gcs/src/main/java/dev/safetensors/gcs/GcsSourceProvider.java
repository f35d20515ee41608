package dev.safetensors.gcs;

import com.google.cloud.storage.Storage;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;

import java.io.IOException;
import java.net.URI;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Opens {@link GcsSource}s for {@code gs://bucket/object} URIs. A generation may be pinned with
 * {@code gs://bucket/object#1712345678901234} or {@code gs://bucket/object?generation=1712345678901234}; no other
 * query parameter is accepted. The object name is the percent-decoded path, so {@code gs://b/a%20b} is object
 * {@code a b}.
 *
 * <p>Found by {@link java.util.ServiceLoader}; the no-argument constructor uses a shared client with application
 * default credentials, or no credentials and the emulator at {@code STORAGE_EMULATOR_HOST} when that variable is
 * set. Opening makes no request. Thread-safe.
 */
public final class GcsSourceProvider implements RandomAccessSourceProvider {
    private final Supplier<Storage> storage;

    /** Uses the default client, created on the first {@link #open}. */
    public GcsSourceProvider() {
        this.storage = DefaultStorage::shared;
    }

    /**
     * @param storage the HTTP/JSON client to read through; it is not closed by the sources
     */
    public GcsSourceProvider(Storage storage) {
        Objects.requireNonNull(storage, "storage");
        this.storage = () -> storage;
    }

    /** @return whether the URI is hierarchical with scheme {@code gs} */
    @Override
    public boolean supports(URI uri) {
        return GcsUri.isGcs(uri);
    }

    /**
     * @throws IOException a {@link java.net.MalformedURLException} if the URI names no bucket or object, carries a
     *                     malformed generation or another query
     */
    @Override
    public RandomAccessSource open(URI uri) throws IOException {
        return GcsSource.open(storage.get(), GcsUri.parse(uri));
    }
}
