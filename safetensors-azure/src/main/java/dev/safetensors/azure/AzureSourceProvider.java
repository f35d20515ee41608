package dev.safetensors.azure;

import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobContainerClientBuilder;
import com.azure.storage.blob.BlobServiceClient;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.StorageException;
import dev.safetensors.spi.RemotePolicy;

import java.io.IOException;
import java.net.URI;
import java.util.Objects;

/**
 * Opens {@link AzureSource}s for {@code az://CONTAINER/BLOB}, {@code azure://CONTAINER/BLOB},
 * {@code abfss://CONTAINER@ACCOUNT.dfs.core.windows.net/PATH} and {@code abfs://…} locations, each optionally
 * {@code ?versionid=ID} or {@code ?snapshot=TIMESTAMP} ({@link AzureLocation}).
 *
 * <p>The no-argument constructor (the one {@link java.util.ServiceLoader} uses) reads the environment and system
 * properties ({@link AzureClientOptions#fromSystem}) when the first source of an account is opened, and builds one client per storage
 * account, shared by every source it opens; {@link #close()} drops them. Programs that manage their own
 * {@link BlobServiceClient} pass it, and every location must then be in that client's account. Thread-safe.
 */
public final class AzureSourceProvider implements RandomAccessSourceProvider, AutoCloseable {
    private final AccountClients clients;
    private final RemotePolicy policy;

    /** A provider configured by the environment and system properties, read on the first {@link #open}. */
    public AzureSourceProvider() {
        this((AzureClientOptions) null, RemotePolicy.DEFAULT);
    }

    /**
     * @param options how to build the clients; {@code null} for {@link AzureClientOptions#fromSystem()}, read on the
     *                first {@link #open}
     * @param policy  retries and deadlines of every source
     */
    public AzureSourceProvider(AzureClientOptions options, RemotePolicy policy) {
        this.clients = AccountClients.configured(options);
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    /** @param options how to build the clients */
    public AzureSourceProvider(AzureClientOptions options) {
        this(Objects.requireNonNull(options, "options"), RemotePolicy.DEFAULT);
    }

    /**
     * @param client the client every source uses, with its account, credentials and HTTP client (its retry policy
     *               is left out: retries are the shared policy's); the caller keeps it
     */
    public AzureSourceProvider(BlobServiceClient client) {
        this(client, RemotePolicy.DEFAULT);
    }

    /**
     * @param client the client every source uses; the caller keeps it
     * @param policy retries and deadlines of every source
     */
    public AzureSourceProvider(BlobServiceClient client, RemotePolicy policy) {
        this.clients = AccountClients.given(client);
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    /** @return whether the scheme is {@code az}, {@code azure}, {@code abfss} or {@code abfs} */
    @Override
    public boolean supports(Location location) {
        return location.uri().filter(AzureLocation::isAzure).isPresent();
    }

    /**
     * @throws IOException an {@link dev.safetensors.InvalidLocationException} ({@link ErrorCode#INVALID_SOURCE}) if
     *                     the URI is malformed or names another account than a given client's; a
     *                     {@link StorageException} ({@link ErrorCode#INVALID_SOURCE} or
     *                     {@link ErrorCode#INVALID_ENDPOINT}) if no client can be configured for it; the blob itself
     *                     is first read on the first request
     */
    @Override
    public RandomAccessSource open(Location at) throws IOException {
        AzureLocation location = AzureLocation.parse(at.requireUri());
        AccountClients.AccountClient client = clients.of(location);
        return AzureSource.open(client.service(), client.pipeline(), location, policy);
    }

    /**
     * Lists the blobs under an {@code az://CONTAINER/PREFIX/}, {@code azure://…} or {@code abfss://…/PATH/} prefix
     * with List Blobs, one request per page of up to {@link ListOptions#pageSize()} blobs (at most 5,000), following
     * continuation markers; one level uses the {@code /} delimiter and reports the blob prefixes below as folders.
     * Each file's version is its ETag. Opening such a location stays refused: a prefix is listed, not read.
     *
     * @throws IOException an {@link dev.safetensors.InvalidLocationException} ({@link ErrorCode#INVALID_SOURCE}) if
     *                     the URI is malformed or pins a version; a {@link StorageException}
     *                     ({@link ErrorCode#INVALID_SOURCE} or {@link ErrorCode#INVALID_ENDPOINT}) if no client can be
     *                     configured for it; the pages themselves fail as {@link Listing#hasNext()} says
     */
    @Override
    public Listing list(Location prefix, ListOptions options) throws IOException {
        URI uri = prefix.uri().orElseThrow(() -> new InvalidLocationException(ErrorCode.INVALID_SOURCE,
                prefix.display() + ": not an az://, azure://, abfss:// or abfs:// prefix"));
        AzureLocation where = AzureLocation.parsePrefix(uri);
        AccountClients.AccountClient client = clients.of(where);
        AccountClients.requireSameAccount(client.service(), where);
        BlobContainerClient container = new BlobContainerClientBuilder()
                .pipeline(client.pipeline().pipeline())
                .endpoint(client.service().getAccountUrl())
                .serviceVersion(client.service().getServiceVersion())
                .containerName(where.container())
                .buildClient();
        return AzurePrefixListing.of(container, uri, where, options, policy);
    }

    /** Drops the clients this provider built (their connections close with them); a given client is kept. */
    @Override
    public void close() {
        clients.clear();
    }
}
