package dev.safetensors.gcs;

import com.google.cloud.NoCredentials;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import dev.safetensors.spi.SourceNames;

import java.util.Map;

/**
 * The {@code Storage} client a {@link GcsSourceProvider} uses when none is given: application default credentials
 * against Cloud Storage, or, when {@code STORAGE_EMULATOR_HOST} is set, no credentials against that host (the
 * convention gcloud and the other client libraries follow; the Java client does not read the variable itself).
 */
final class DefaultStorage {
    static final String EMULATOR_HOST = "STORAGE_EMULATOR_HOST";

    private DefaultStorage() {
    }

    /**
     * @throws StorageException {@link ErrorCode#INVALID_ENDPOINT} when the emulator host carries user information,
     *                          refused without quoting it (the part before '@' may be a password)
     */
    static Storage create(Map<String, String> env) throws StorageException {
        String emulator = env.get(EMULATOR_HOST);
        if (emulator == null || emulator.isBlank()) {
            return StorageOptions.http().build().getService();
        }
        if (SourceNames.mayCarryUserInfo(emulator)) {
            throw new StorageException(ErrorCode.INVALID_ENDPOINT, "gs", EMULATOR_HOST + " carries user information"
                    + " (a name or password before '@'), which is never sent nor shown");
        }
        String host = emulator.contains("://") ? emulator.trim() : "http://" + emulator.trim();
        // An explicit project id keeps the client from probing the GCE metadata server for one.
        String project = env.getOrDefault("GOOGLE_CLOUD_PROJECT", "emulator");
        return StorageOptions.http()
                .setHost(host)
                .setProjectId(project)
                .setCredentials(NoCredentials.getInstance())
                .build()
                .getService();
    }
}
