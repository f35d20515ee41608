package dev.safetensors.gcs;

import com.google.cloud.storage.Storage;

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
 * Writes {@code gs://bucket/object} locations to Cloud Storage through the JSON API, sent on the {@code Storage}
 * client's own HTTP transport and credentials the way {@link GcsSource} reads, every request one
 * {@link dev.safetensors.spi.RetriedRequest} under this writer's {@link RemotePolicy} (the client's own retries are
 * never used).
 *
 * <h2>Protocol: one request, or a resumable upload</h2>
 * An object that fits in one part ({@link UploadOptions#partSize()}, rounded down to a multiple of 256 KiB) is sent
 * at commit in one {@code uploadType=media} request; a larger one through a resumable upload
 * ({@code uploadType=resumable}): a session {@code POST} with the first full part, then one {@code PUT} per part
 * with {@code Content-Range}, the last naming the total. A part that fails is resumed from what the session says it
 * holds ({@code Content-Range: bytes *&#47;TOTAL}), not sent again whole. The resumable upload was chosen over a
 * parallel composite upload (parts as temporary objects, {@code compose}, deletes) because it leaves nothing that is
 * listed or billed: the object appears whole when its last part arrives, a cancelled session stores nothing, an
 * abandoned one expires unlisted after a week (so {@link #abortIncomplete} has nothing to remove), whereas deleted
 * temporary parts stay billed under a bucket's soft-delete retention and early-deletion charges, need the
 * delete permission, and a composed object has no MD5. Its cost is that parts are sent <em>one after another</em>:
 * {@link UploadOptions#parallelism()} does not apply, and an upload holds one part's buffer, within the
 * {@code partSize x parallelism} bound.
 *
 * <h2>Requests per object</h2>
 * For an object of N parts: one metadata {@code GET} at {@link #create} to check the object is absent (left out
 * when overwriting), then 1 request for N = 1 (an empty object included), or N + 1 for N &gt; 1 (the session
 * {@code POST} and N {@code PUT}s). An abort after the session started adds its cancellation ({@code DELETE} of the
 * session URI); a failed attempt of a part adds the session query before its retry. Overwriting is not asked:
 * 2 requests for one part, N + 2 for N.
 *
 * <h2>No overwrite, checksums</h2>
 * Without {@link UploadOptions#overwrite()} the final request (the one-request upload, or the session, which Cloud
 * Storage checks when the last part arrives) carries {@code ifGenerationMatch=0}, and Cloud Storage's 412 is
 * {@link ErrorCode#ALREADY_EXISTS}. The CRC32C of the bytes written is sent with the final request
 * ({@code x-goog-hash: crc32c=BASE64}) and compared with the {@code crc32c} of the object resource answered; a
 * difference is {@link ErrorCode#CHECKSUM_MISMATCH} (a size difference {@link ErrorCode#SIZE_MISMATCH}), and an object
 * the upload created is then deleted, by its generation. {@link dev.safetensors.spi.WrittenObject#checksum()} is
 * {@code crc32c:BASE64}.
 *
 * <p>Failures name the object by {@link Location#display()} and quote Cloud Storage's message; no URL, token or
 * session URI is ever in one. Found by {@link java.util.ServiceLoader}; the no-argument constructor creates, on
 * first use, a client as {@link GcsSourceProvider}'s does (application default credentials, or the emulator at
 * {@code STORAGE_EMULATOR_HOST}) and {@link #close()} closes it; a {@code Storage} passed in is never closed here.
 * Thread-safe; each upload is driven by one caller.
 */
public final class GcsObjectWriter implements ObjectWriterProvider, AutoCloseable {
    private final RemotePolicy policy;
    private final ProviderStorage storage;
    private JsonApiTransport transport;
    private ObjectRequests requests;

    /** Uses a client of its own, created on first use. */
    public GcsObjectWriter() {
        this.policy = RemotePolicy.DEFAULT;
        this.storage = ProviderStorage.createdOnFirstUse();
    }

    /**
     * @param storage the HTTP/JSON client to write through; it is not closed by this writer
     */
    public GcsObjectWriter(Storage storage) {
        this(storage, RemotePolicy.DEFAULT);
    }

    /**
     * @param storage the HTTP/JSON client to write through; it is not closed by this writer
     * @param policy  retries of every request
     */
    public GcsObjectWriter(Storage storage, RemotePolicy policy) {
        this.storage = ProviderStorage.given(storage);
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    /** @return whether the location is a hierarchical URI with scheme {@code gs} */
    @Override
    public boolean supports(Location location) {
        return location.uri().filter(GcsUri::isGcs).isPresent();
    }

    /**
     * Checks, unless overwriting, that the object is absent; the upload then sends nothing until its first part is
     * full or it commits.
     *
     * @throws IOException {@link ErrorCode#INVALID_SOURCE} for a location naming no object, a folder (a name
     *                     ending in {@code /}) or a generation; {@link ErrorCode#ALREADY_EXISTS} for an existing
     *                     object not to be overwritten; the check's failure otherwise
     */
    @Override
    public ObjectUpload create(Location object, UploadOptions options) throws IOException {
        GcsUri target = target(object);
        ObjectRequests requests = requests();
        if (!options.overwrite() && requests.exists(target, object.display())) {
            throw new StorageException(ErrorCode.ALREADY_EXISTS, object.display(), "the object already exists and is"
                    + " not to be overwritten");
        }
        return new GcsUpload(requests, target, object, options);
    }

    /**
     * Deletes the live object with one {@code DELETE}; an absent object (404) is deleted already.
     *
     * @throws IOException {@link ErrorCode#INVALID_SOURCE} as for {@link #create}; the delete's failure otherwise
     */
    @Override
    public void delete(Location object) throws IOException {
        requests().delete(target(object), object.display(), -1);
    }

    /**
     * Releases the HTTP transport and closes the client this writer created, if any; a client passed in stays
     * open. Idempotent.
     *
     * @throws IOException if the transport or the client fails to close
     */
    @Override
    public synchronized void close() throws IOException {
        JsonApiTransport used = transport;
        transport = null;
        requests = null;
        try {
            if (used != null) {
                used.close();
            }
        } finally {
            storage.close();
        }
    }

    private static GcsUri target(Location object) throws IOException {
        GcsUri uri = GcsUri.parse(object.requireUri());
        if (uri.generation() >= 0) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, object.display() + ": a write makes a new"
                    + " generation and cannot name one");
        }
        if (uri.object().endsWith("/")) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, object.display() + ": names a folder, not"
                    + " an object");
        }
        return uri;
    }

    /** @return the requests on one transport for all uploads, made on first use */
    private synchronized ObjectRequests requests() throws StorageException {
        if (requests == null) {
            transport = new JsonApiTransport(storage.get().getOptions(), "GcsObjectWriter");
            requests = new ObjectRequests(transport, policy);
        }
        return requests;
    }
}
