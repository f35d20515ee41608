package dev.safetensors.azure;

import com.azure.storage.blob.BlobServiceClient;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.Location;
import dev.safetensors.StorageException;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.ObjectWriterProvider;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.spi.UploadOptions;

import java.io.IOException;
import java.util.Objects;

/**
 * Writes block blobs at {@code az://CONTAINER/BLOB}, {@code azure://…}, {@code abfss://CONTAINER@ACCOUNT.dfs.…/PATH}
 * and {@code abfs://…} locations ({@link AzureLocation}), with the clients {@link AzureSourceProvider} would read
 * them with. The requests of one object:
 *
 * <ul>
 *   <li>unless {@link UploadOptions#overwrite()}, one Get Blob Properties ({@code HEAD}) when the upload is
 *       created: an existing blob fails it with {@link ErrorCode#ALREADY_EXISTS} before any byte is sent;</li>
 *   <li>an object of at most one {@link UploadOptions#partSize() part}: one Put Blob at commit;</li>
 *   <li>a larger one: one Put Block per part, sent as each part fills, up to {@link UploadOptions#parallelism()} in
 *       flight ({@link ObjectUpload#write} waits for one to finish beyond that), then one Put Block List at
 *       commit;</li>
 *   <li>the Put Blob or Put Block List carries {@code If-None-Match: *} unless overwriting, so a blob that appeared
 *       meanwhile fails the commit with {@link ErrorCode#ALREADY_EXISTS} ({@code 412 ConditionNotMet} or
 *       {@code 409 BlobAlreadyExists}) and is left as it is.</li>
 * </ul>
 * So a one-part object takes 2 requests (1 with overwriting), an object of {@code n} parts {@code n + 2}
 * ({@code n + 1}), retries aside: every request is retried under the {@link RemotePolicy}, through the client's
 * pipeline without the SDK's retry policies, as the reads are. A conditional commit refused only on a retry may
 * have been refused for the blob its own earlier attempt created; one more request (Get Blob Properties, or Get
 * Block List) tells, and the commit stands if the blob there is its own.
 *
 * <p>Each request with content carries its {@code Content-MD5}, which the service checks; the MD5 it answers with is
 * compared with the local one too, and a difference is {@link ErrorCode#CHECKSUM_MISMATCH}. The
 * {@link dev.safetensors.spi.WrittenObject#checksum() checksum} reported is {@code md5:BASE64} for an object put in
 * one request when the service confirmed it, and empty for an object of blocks, whose whole MD5 the service does not
 * report.
 *
 * <p>An upload abandoned (aborted, closed without a commit, or failed) deletes nothing, because nothing is billable or
 * visible: Azure keeps uncommitted blocks out of the blob and its listings and drops them when the blob is next
 * committed, or after seven days. For the same reason {@link #abortIncomplete} keeps its default, which does nothing.
 *
 * <p>The no-argument constructor (the one {@link java.util.ServiceLoader} uses) reads the environment and system
 * properties ({@link AzureClientOptions#fromSystem}) when the first object of an account is written, and builds one
 * client per storage account; {@link #close()} drops them. Thread-safe.
 */
public final class AzureObjectWriter implements ObjectWriterProvider, AutoCloseable {
    private final AccountClients clients;
    private final RemotePolicy policy;

    /** A writer configured by the environment and system properties, read on the first {@link #create}. */
    public AzureObjectWriter() {
        this((AzureClientOptions) null, RemotePolicy.DEFAULT);
    }

    /** @param options how to build the clients */
    public AzureObjectWriter(AzureClientOptions options) {
        this(Objects.requireNonNull(options, "options"), RemotePolicy.DEFAULT);
    }

    /**
     * @param options how to build the clients; {@code null} for {@link AzureClientOptions#fromSystem()}, read on the
     *                first {@link #create}
     * @param policy  retries of every request
     */
    public AzureObjectWriter(AzureClientOptions options, RemotePolicy policy) {
        this.clients = AccountClients.configured(options);
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    /**
     * @param client the client every request uses, with its account, credentials and HTTP client (its retry policy
     *               is left out: retries are the shared policy's); the caller keeps it
     */
    public AzureObjectWriter(BlobServiceClient client) {
        this(client, RemotePolicy.DEFAULT);
    }

    /**
     * @param client the client every request uses; the caller keeps it
     * @param policy retries of every request
     */
    public AzureObjectWriter(BlobServiceClient client, RemotePolicy policy) {
        this.clients = AccountClients.given(client);
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    /** @return whether the scheme is {@code az}, {@code azure}, {@code abfss} or {@code abfs} */
    @Override
    public boolean supports(Location location) {
        return location.uri().filter(AzureLocation::isAzure).isPresent();
    }

    /**
     * @throws IOException {@link ErrorCode#ALREADY_EXISTS} for an existing blob not to be replaced;
     *                     {@link ErrorCode#INVALID_SOURCE} for a location that names no blob (a container, a name
     *                     ending in {@code /}), pins a version or snapshot, or names another account than a given
     *                     client's; {@link ErrorCode#INVALID_ENDPOINT} if no client can be configured; the service's
     *                     failure of the Get Blob Properties
     */
    @Override
    public ObjectUpload create(Location object, UploadOptions options) throws IOException {
        Objects.requireNonNull(options, "options");
        BlobRequests blob = requests(object);
        if (!options.overwrite() && blob.exists()) {
            throw new StorageException(ErrorCode.ALREADY_EXISTS, object.display(), "the blob already exists and is"
                    + " not to be replaced");
        }
        return new BlockUpload(object, blob, options);
    }

    /**
     * Deletes the blob with Delete Blob; an absent blob (or container) succeeds.
     *
     * @throws IOException {@link ErrorCode#INVALID_SOURCE} for a location that names no blob or pins a version or
     *                     snapshot; the service's failure otherwise (a blob with snapshots is refused, as Delete Blob
     *                     refuses it)
     */
    @Override
    public void delete(Location object) throws IOException {
        requests(object).delete();
    }

    /** Drops the clients this writer built (their connections close with them); a given client is kept. */
    @Override
    public void close() {
        clients.clear();
    }

    private BlobRequests requests(Location object) throws IOException {
        AzureLocation location = AzureLocation.parse(object.requireUri());
        if (location.versionId() != null || location.snapshot() != null) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, location.name() + ": a version or snapshot"
                    + " is read, never written");
        }
        AccountClients.AccountClient client = clients.of(location);
        AccountClients.requireSameAccount(client.service(), location);
        String url = client.service().getBlobContainerClient(location.container()).getBlobClient(location.blob())
                .getBlobUrl();
        return new BlobRequests(client.pipeline(), url, object.display(), policy);
    }
}
