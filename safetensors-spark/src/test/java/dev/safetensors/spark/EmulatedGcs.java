package dev.safetensors.spark;

import com.google.cloud.NoCredentials;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.gcs.GcsObjectWriter;
import dev.safetensors.gcs.GcsSourceProvider;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.ObjectWriterProvider;
import dev.safetensors.spi.UploadOptions;

import java.io.IOException;
import java.util.function.Predicate;

/**
 * The GCS backend as {@code STORAGE_EMULATOR_HOST} would configure it, for a JVM whose environment cannot be set
 * once it runs: the backend's own reader and writer over a client with no credentials pointed at a loopback fake
 * ({@link #serve}). Listed in this module's test {@code META-INF/services} for both services, so the registries'
 * {@code ServiceLoader} finds it before the installed GCS backend (test classes come first on the class path); until
 * a test serves a host it claims nothing and the installed backend answers, as the command's tests'
 * {@code InjectedEnvironmentProvider} does.
 */
public final class EmulatedGcs implements RandomAccessSourceProvider, ObjectWriterProvider {
    private static volatile GcsSourceProvider reader;
    private static volatile GcsObjectWriter writer;

    /** {@link java.util.ServiceLoader} creates it. */
    public EmulatedGcs() {
    }

    /**
     * @param host the fake's {@code http://127.0.0.1:PORT}, as {@code STORAGE_EMULATOR_HOST} names it
     */
    static synchronized void serve(String host) {
        Storage storage = StorageOptions.http().setHost(host).setProjectId("test")
                .setCredentials(NoCredentials.getInstance()).build().getService();
        reader = new GcsSourceProvider(storage);
        writer = new GcsObjectWriter(storage);
    }

    @Override
    public boolean supports(Location location) {
        return reader != null && reader.supports(location);
    }

    @Override
    public RandomAccessSource open(Location location) throws IOException {
        return reader.open(location);
    }

    @Override
    public Listing list(Location prefix, ListOptions options) throws IOException {
        return reader.list(prefix, options);
    }

    @Override
    public ObjectUpload create(Location object, UploadOptions options) throws IOException {
        return writer.create(object, options);
    }

    @Override
    public void delete(Location object) throws IOException {
        writer.delete(object);
    }

    @Override
    public int abortIncomplete(Location prefix, Predicate<Location> objects) throws IOException {
        return writer.abortIncomplete(prefix, objects);
    }
}
