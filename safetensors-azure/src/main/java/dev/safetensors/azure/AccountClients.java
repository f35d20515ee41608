package dev.safetensors.azure;

import com.azure.storage.blob.BlobServiceClient;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.StorageException;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The clients a provider ({@link AzureSourceProvider}, {@link AzureObjectWriter}) sends with: one per storage
 * account, built on first use from the options given or, without them, from the environment and system properties
 * ({@link AzureClientOptions#fromSystem()}), each with its {@link BlobPipeline} without retries; or the one client an
 * application gave, for every location. Thread-safe.
 */
final class AccountClients {
    private final AzureClientOptions options;
    private final BlobServiceClient given;
    private final Map<String, AccountClient> built = new HashMap<>();

    private AccountClients(AzureClientOptions options, BlobServiceClient given) {
        this.options = options;
        this.given = given;
    }

    /**
     * @param options how to build the clients; {@code null} for {@link AzureClientOptions#fromSystem()}, read when
     *                the first client is built
     * @return clients built per account
     */
    static AccountClients configured(AzureClientOptions options) {
        return new AccountClients(options, null);
    }

    /**
     * @param client the client every location uses; its owner keeps it
     * @return clients that are all that one
     */
    static AccountClients given(BlobServiceClient client) {
        return new AccountClients(null, Objects.requireNonNull(client, "client"));
    }

    /**
     * @param location a blob or prefix
     * @return the client of its account, built on first use
     * @throws StorageException ({@link ErrorCode#INVALID_SOURCE} or {@link ErrorCode#INVALID_ENDPOINT}) if no client
     *                          can be configured for it
     */
    synchronized AccountClient of(AzureLocation location) throws StorageException {
        String account = given != null || location.account() == null ? "" : location.account();
        AccountClient known = built.get(account);
        if (known != null) {
            return known;
        }
        BlobServiceClient service = given != null ? given : build(location);
        AccountClient client = new AccountClient(service, BlobPipeline.of(service));
        built.put(account, client);
        return client;
    }

    /** Drops the clients built here (their connections close with them); a given client is kept. */
    synchronized void clear() {
        built.clear();
    }

    private BlobServiceClient build(AzureLocation location) throws StorageException {
        AzureClientOptions o = options;
        if (o == null) {
            try {
                o = AzureClientOptions.fromSystem();
            } catch (IllegalArgumentException e) {
                throw new StorageException(ErrorCode.INVALID_ENDPOINT, location.name(),
                        AzureClientOptions.BLOB_ENDPOINT + ": " + e.getMessage());
            }
        }
        return o.buildClient(location);
    }

    /**
     * @param client   a client
     * @param location a blob or prefix
     * @throws InvalidLocationException ({@link ErrorCode#INVALID_SOURCE}) if the location names another account than
     *                                  the client's
     */
    static void requireSameAccount(BlobServiceClient client, AzureLocation location) throws InvalidLocationException {
        if (location.account() != null && !location.account().equals(client.getAccountName())) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, location.name()
                    + ": the location names account '" + location.account() + "' but the client is for account '"
                    + client.getAccountName() + "'");
        }
    }

    /**
     * A client and its pipeline without retries.
     *
     * @param service  the client, with its account, credentials and HTTP client
     * @param pipeline its pipeline without retry policies
     */
    record AccountClient(BlobServiceClient service, BlobPipeline pipeline) {
    }
}
