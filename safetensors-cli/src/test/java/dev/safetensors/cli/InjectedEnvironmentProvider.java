package dev.safetensors.cli;

import com.google.cloud.NoCredentials;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.SourceIdentity;
import dev.safetensors.RepositoryListing;
import dev.safetensors.gcs.GcsSourceProvider;
import dev.safetensors.http.HttpSettings;
import dev.safetensors.http.HttpSourceProvider;

import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.Optional;

/**
 * The backends as the launcher's process would configure them from its environment, for a command run in-process
 * ({@link InProcess}) with an injected one: listed in this module's test {@code META-INF/services}, so the command's
 * {@code ServiceLoader} finds it before the real providers, it serves {@code http}, {@code https} and {@code hf} when
 * {@code HF_ENDPOINT} is injected, and {@code gs} when {@code STORAGE_EMULATOR_HOST} is; otherwise it serves nothing
 * and the installed providers answer, configured from the JVM's own environment.
 */
public final class InjectedEnvironmentProvider implements RandomAccessSourceProvider, AutoCloseable {
    private final HttpSourceProvider http;
    private final Storage storage;
    private final GcsSourceProvider gcs;

    /** Takes the environment injected into the run that builds the command's registry. */
    public InjectedEnvironmentProvider() {
        Map<String, String> env = InProcess.environment();
        String hub = env.get("HF_ENDPOINT");
        if (hub == null) {
            http = null;
        } else {
            HttpSettings.Builder settings = HttpSettings.builder().hubEndpoint(URI.create(hub));
            if (env.containsKey("HF_TOKEN")) {
                settings.token(env.get("HF_TOKEN"));
            }
            http = new HttpSourceProvider(settings.build());
        }
        String emulator = env.get("STORAGE_EMULATOR_HOST");
        // as dev.safetensors.gcs.DefaultStorage reads these variables: no credentials against the emulator's host
        storage = emulator == null ? null : StorageOptions.http()
                .setHost(emulator.contains("://") ? emulator : "http://" + emulator)
                .setProjectId(env.getOrDefault("GOOGLE_CLOUD_PROJECT", "emulator"))
                .setCredentials(NoCredentials.getInstance()).build().getService();
        gcs = storage == null ? null : new GcsSourceProvider(storage);
    }

    private RandomAccessSourceProvider delegate(Location location) {
        if (http != null && http.supports(location)) {
            return http;
        }
        return gcs != null && gcs.supports(location) ? gcs : null;
    }

    @Override
    public boolean supports(Location location) {
        return delegate(location) != null;
    }

    @Override
    public RandomAccessSource open(Location location) throws IOException {
        return delegate(location).open(location);
    }

    @Override
    public Optional<RepositoryListing> listCheckpoints(Location location) throws IOException {
        RandomAccessSourceProvider p = delegate(location);
        return p == null ? Optional.empty() : p.listCheckpoints(location);
    }

    @Override
    public Listing list(Location prefix, ListOptions options) throws IOException {
        RandomAccessSourceProvider p = delegate(prefix);
        return p == null ? RandomAccessSourceProvider.super.list(prefix, options) : p.list(prefix, options);
    }

    @Override
    public Location sibling(Location file, String name, SourceIdentity identity) {
        RandomAccessSourceProvider p = delegate(file);
        return p == null ? RandomAccessSourceProvider.super.sibling(file, name, identity) : p.sibling(file, name,
                identity);
    }

    @Override
    public void close() throws Exception {
        try {
            if (http != null) {
                http.close();
            }
        } finally {
            if (storage != null) {
                storage.close();
            }
        }
    }
}
