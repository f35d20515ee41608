package dev.safetensors.gcs;

import dev.safetensors.SourceIdentity;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.Storage;
import dev.safetensors.ErrorCode;
import dev.safetensors.RangeNotHonouredException;
import dev.safetensors.SourceAccessDeniedException;
import dev.safetensors.SourceChangedException;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.StorageException;
import dev.safetensors.spi.AbstractRangedSource;
import dev.safetensors.spi.ContentRange;
import dev.safetensors.spi.RangeAnswer;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.spi.SourceNames;

import java.io.IOException;
import java.util.Objects;

/**
 * A {@link dev.safetensors.RandomAccessSource} over one Google Cloud Storage object, {@code gs://bucket/object}.
 * Verification, end of object, size, version pin, retries and deadlines are those of {@link AbstractRangedSource},
 * the same as for every remote store; this class sends the media GET and adds what is GCS's own:
 *
 * <ul>
 *   <li>Each {@link #read} and {@link #openRange} is one media GET with {@code Range: bytes=a-b}, sent through the
 *       {@code Storage} client's own HTTP transport and credentials.</li>
 *   <li>{@code Content-Encoding} and {@code x-goog-stored-content-encoding} must be absent or {@code identity}:
 *       GCS transcodes gzip-stored objects, and then byte ranges no longer address the stored bytes
 *       ({@link StorageException}, {@link ErrorCode#IO_ERROR}, saying so).</li>
 *   <li>The generation of the first answer (or the one the URI names) is pinned and sent on every later request as
 *       {@code generation=G&ifGenerationMatch=G}; an answer with another generation,
 *       a 412, or a 404 after a successful read, is a {@link SourceChangedException}; an answer without a valid
 *       {@code x-goog-generation} is a {@link StorageException} ({@link ErrorCode#IO_ERROR}): the version cannot be
 *       pinned.
 *       {@code x-goog-stored-content-length} must agree with the size in {@code Content-Range}.</li>
 *   <li>The server's error message (JSON {@code message}) is quoted, clipped, in failures.</li>
 * </ul>
 *
 * <p>Thread-safe: reads carry no cursor and may run concurrently. Only the HTTP/JSON transport
 * ({@code StorageOptions.http()}, the default) is supported.
 */
public final class GcsSource extends AbstractRangedSource<GcsVersion> {
    private final GcsUri uri;
    private final MediaClient media;

    private GcsSource(Storage storage, GcsUri uri, RemotePolicy policy) {
        super(uri.name(), policy, uri.generation() >= 0 ? new GcsVersion(uri.generation(), null) : null);
        this.uri = uri;
        this.media = new MediaClient(storage.getOptions(), uri, uri.name(), counter());
    }

    /**
     * Opens an object without making a request, with {@link RemotePolicy#DEFAULT}.
     *
     * @param storage an HTTP/JSON {@code Storage} client; its credentials, host and timeouts are used. The source
     *                does not close it.
     * @param blob    the object; a generation in it pins that generation from the first request on
     * @return the source
     * @throws IllegalArgumentException if the client uses the gRPC transport
     */
    public static GcsSource open(Storage storage, BlobId blob) {
        return open(storage, blob, RemotePolicy.DEFAULT);
    }

    /**
     * @param storage an HTTP/JSON {@code Storage} client, not closed by the source
     * @param blob    the object; a generation in it pins that generation from the first request on
     * @param policy  retries and deadlines
     * @return the source; no request is made yet
     * @throws IllegalArgumentException if the client uses the gRPC transport
     */
    public static GcsSource open(Storage storage, BlobId blob, RemotePolicy policy) {
        return open(storage, GcsUri.of(Objects.requireNonNull(blob, "blob")), policy);
    }

    static GcsSource open(Storage storage, GcsUri uri, RemotePolicy policy) {
        return new GcsSource(Objects.requireNonNull(storage, "storage"), uri, Objects.requireNonNull(policy, "policy"));
    }

    /** @return the version (the generation, once pinned or asked for) and the ETag (once seen) */
    @Override
    public SourceIdentity identity() {
        GcsVersion known = version();
        return known == null ? SourceIdentity.NONE
                : new SourceIdentity(known.etag(), Long.toString(known.generation()), null, null, null);
    }

    @Override
    protected RangeAnswer send(long position, long length, GcsVersion version) throws IOException {
        return media.get(position, length, version == null ? -1 : version.generation());
    }

    @Override
    protected GcsVersion identify(RangeAnswer answer, GcsVersion version) throws IOException {
        refuseTranscoding("Content-Encoding", answer.header("Content-Encoding"));
        refuseTranscoding("x-goog-stored-content-encoding", answer.header("x-goog-stored-content-encoding"));
        String value = answer.header("x-goog-generation");
        String v = value == null ? "" : value.trim();
        if (v.isEmpty() || v.length() > 18 || !v.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new StorageException(ErrorCode.IO_ERROR, name(), "the answer carries " + (value == null
                    ? "no x-goog-generation header" : "a malformed x-goog-generation '" + SourceNames.clip(value) + "'")
                    + ", so the object version cannot be pinned");
        }
        long seen = Long.parseLong(v);
        if (version != null && seen != version.generation()) {
            throw new SourceChangedException(name(), "generation " + version.generation() + " was "
                    + (knownSize() >= 0 ? "pinned" : "asked for") + " but the answer is for generation " + seen);
        }
        String stored = answer.header("x-goog-stored-content-length");
        String total = ContentRange.parse(answer.header("Content-Range")).map(r -> Long.toString(r.total()))
                .orElse(answer.header("Content-Length"));
        if (stored != null && total != null && !stored.trim().equals(total.trim())) {
            throw new RangeNotHonouredException(name(), "the object size " + SourceNames.clip(total)
                    + " disagrees with x-goog-stored-content-length '" + SourceNames.clip(stored) + "'");
        }
        if (version != null && version.etag() != null) {
            return version;
        }
        String etag = answer.header("ETag");
        GcsVersion next = new GcsVersion(seen, etag == null ? null : SourceNames.clip(etag));
        return next.equals(version) ? version : next;
    }

    @Override
    protected IOException statusFailure(RangeAnswer answer, GcsVersion version, int attempts) {
        String generation = version == null ? "?" : Long.toString(version.generation());
        int status = answer.status();
        String said = ServerMessage.quoted(ServerMessage.of(answer.body()));
        switch (status) {
            case 404, 410 -> {
                if (knownSize() >= 0) {
                    return new SourceChangedException(name(), "generation " + generation
                            + " was read before but is gone now (" + status + ")" + said);
                }
                return new SourceNotFoundException(name(), "no such object or bucket (HTTP " + status + ")" + said);
            }
            case 401 -> {
                return new SourceAccessDeniedException(name(), "HTTP 401: the request carried no valid credentials;"
                        + " check application default credentials or the Storage passed in" + said);
            }
            case 403 -> {
                return new SourceAccessDeniedException(name(), "HTTP 403: the credentials in use may not read this"
                        + " object (storage.objects.get is needed)" + said);
            }
            case 412 -> {
                return new SourceChangedException(name(), "generation " + generation
                        + " is no longer the live object (HTTP 412 precondition failed)" + said);
            }
            default -> {
                IOException failure = super.statusFailure(answer, version, attempts);
                if (said.isEmpty() || !(failure instanceof StorageException storage)) {
                    return failure;
                }
                return new StorageException(storage.code(), name(), "the storage answered HTTP " + status + " after "
                        + attempts + " attempt" + (attempts == 1 ? "" : "s") + said);
            }
        }
    }

    private void refuseTranscoding(String header, String value) throws StorageException {
        if (value != null && !value.isBlank() && !value.trim().equalsIgnoreCase("identity")) {
            throw new StorageException(ErrorCode.IO_ERROR, name(), "the object is stored with Content-Encoding '"
                    + SourceNames.clip(value.trim()) + "' (" + header + "); Cloud Storage decompresses such objects"
                    + " on the fly and ignores byte ranges, so they cannot be read as safetensors."
                    + " Store the file without a Content-Encoding.");
        }
    }

    @Override
    protected void release() throws IOException {
        media.close();
    }

    @Override
    public String toString() {
        return "GcsSource[" + name() + "]";
    }
}
