package dev.safetensors.gcs;

import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceStatistics;
import dev.safetensors.spi.RequestCounter;
import dev.safetensors.spi.SourceNames;
import dev.safetensors.spi.VerifiedRangeChannel;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link RandomAccessSource} over one Google Cloud Storage object, {@code gs://bucket/object}.
 *
 * <h2>What every read checks</h2>
 * Each {@link #read} and {@link #openRange} is one media GET with {@code Range: bytes=a-b} for exactly the bytes
 * wanted, sent through the {@code Storage} client's own HTTP transport and credentials. Before the body is used,
 * the response must have {@code Content-Encoding} and {@code x-goog-stored-content-encoding} absent or
 * {@code identity} (gzip-stored objects are refused with a plain {@link IOException}); an
 * {@code x-goog-generation} equal to the pinned one ({@link dev.safetensors.SourceChangedException}); status 206
 * and a {@code Content-Range} equal to the range asked and to the size seen before, a {@code Content-Length} and
 * {@code x-goog-stored-content-length} that agree ({@link dev.safetensors.RangeNotHonouredException}). The body
 * must then be exactly the promised length, neither shorter nor longer; on any failure, or when a range channel
 * is closed early, the connection is dropped, never drained.
 *
 * <h2>Pinned generation</h2>
 * The generation of the first response (or the one the URI names) is sent on every later request as
 * {@code generation=G&ifGenerationMatch=G}; a 412, a 404 after a successful read, or another generation in a
 * response is {@link dev.safetensors.SourceChangedException}.
 *
 * <h2>Cost</h2>
 * The size comes from the first ranged response, so a header that fits the prefix costs one request. Only
 * {@link #size()} before any read costs one metadata GET ({@code storage.get} with fields size, generation,
 * contentEncoding, etag). A read at or past a known size returns -1 without a request.
 *
 * <h2>Errors</h2>
 * 404 is {@link java.nio.file.NoSuchFileException} and 401/403 {@link java.nio.file.AccessDeniedException}, both
 * with the {@code gs://} name. Connection failures and statuses 408, 429, 5xx are retried as the client's
 * {@code RetrySettings} allow (bounded by {@code maxAttempts} and the total timeout).
 *
 * <p>Thread-safe: reads carry no cursor and may run concurrently. Only the HTTP/JSON transport
 * ({@code StorageOptions.http()}, the default) is supported.
 */
public final class GcsSource implements RandomAccessSource {
    private static final System.Logger LOG = System.getLogger(GcsSource.class.getName());

    private final Storage storage;
    private final GcsUri uri;
    private final String name;
    private final RequestCounter counter = new RequestCounter();
    private final GenerationPin pin;
    private final MediaClient media;
    private final AtomicBoolean closed = new AtomicBoolean();

    private GcsSource(Storage storage, GcsUri uri) {
        this.storage = storage;
        this.uri = uri;
        this.name = uri.name();
        this.pin = new GenerationPin(name, uri.generation());
        this.media = new MediaClient(storage.getOptions(), uri, name, counter);
    }

    /**
     * Opens an object without making a request.
     *
     * @param storage an HTTP/JSON {@code Storage} client; its credentials, host, timeouts and retry settings are used.
     *                The source does not close it.
     * @param blob    the object; a generation in it pins that generation from the first request on
     * @return the source
     * @throws IllegalArgumentException if the client uses the gRPC transport
     */
    public static GcsSource open(Storage storage, BlobId blob) {
        return open(storage, GcsUri.of(Objects.requireNonNull(blob, "blob")));
    }

    static GcsSource open(Storage storage, GcsUri uri) {
        return new GcsSource(Objects.requireNonNull(storage, "storage"), uri);
    }

    @Override
    public long size() throws IOException {
        long known = pin.knownSize();
        return known >= 0 ? known : sizeFromMetadata();
    }

    @Override
    public int read(long position, ByteBuffer dst) throws IOException {
        ensureOpen();
        if (position < 0) {
            throw new IllegalArgumentException("negative position " + position);
        }
        if (!dst.hasRemaining()) {
            return 0;
        }
        long size = pin.knownSize();
        if (size >= 0 && position >= size) {
            return -1;
        }
        long want = size >= 0 ? Math.min(dst.remaining(), size - position) : dst.remaining();
        RangeResponse response = media.get(position, want, pin);
        if (response == null) {
            return -1;
        }
        int total = 0;
        try (VerifiedRangeChannel body = response.body(name, counter)) {
            // The range is at most dst.remaining(), so the channel ends (after checking for an extra byte)
            // before dst can run out of room.
            for (int n; (n = body.read(dst)) >= 0; ) {
                total += n;
            }
        }
        return total;
    }

    @Override
    public ReadableByteChannel openRange(long position, long length) throws IOException {
        if (position < 0 || length < 0 || position > Long.MAX_VALUE - length) {
            throw new IllegalArgumentException("invalid range: position " + position + ", length " + length);
        }
        ensureOpen();
        if (length == 0) {
            return new VerifiedRangeChannel(name, InputStream.nullInputStream(), 0, () -> { }, counter);
        }
        long size = pin.knownSize();
        if (size >= 0 && position + length > size) {
            throw pastEnd(position, length, size);
        }
        RangeResponse response = media.get(position, length, pin);
        if (response == null) {
            throw pastEnd(position, length, pin.knownSize());
        }
        if (response.range().length() != length) {
            response.abort();
            throw pastEnd(position, length, response.range().total());
        }
        return response.body(name, counter);
    }

    private EOFException pastEnd(long position, long length, long size) {
        return new EOFException(name + ": range of " + length + " bytes at " + position + " ends past the end of"
                + " the object" + (size >= 0 ? " (size " + size + ")" : ""));
    }

    private long sizeFromMetadata() throws IOException {
        ensureOpen();
        long generation = pin.generationToSend();
        boolean learned = pin.learned();
        Storage.BlobGetOption fields = Storage.BlobGetOption.fields(Storage.BlobField.SIZE,
                Storage.BlobField.GENERATION, Storage.BlobField.CONTENT_ENCODING, Storage.BlobField.ETAG);
        counter.request();
        // one exchange as far as this backend can see: retries inside the Storage client are its own
        counter.exchange();
        Blob blob;
        try {
            blob = generation >= 0
                    ? storage.get(BlobId.of(uri.bucket(), uri.object(), generation), fields,
                    Storage.BlobGetOption.generationMatch(generation))
                    : storage.get(BlobId.of(uri.bucket(), uri.object()), fields);
        } catch (StorageException e) {
            LOG.log(System.Logger.Level.DEBUG, () -> "GET metadata " + name + " -> " + e.getCode());
            if (e.getCode() <= 0) {
                throw new IOException(name + ": metadata request failed: " + e.getMessage(), e);
            }
            throw StatusFailures.of(name, e.getCode(), SourceNames.clip(String.valueOf(e.getMessage())), generation,
                    learned, e);
        }
        LOG.log(System.Logger.Level.DEBUG, () -> "GET metadata " + name + " -> "
                + (blob == null ? "404" : "200 size " + blob.getSize() + " generation " + blob.getGeneration()));
        if (blob == null) {
            throw StatusFailures.of(name, 404, "", generation, learned, null);
        }
        ResponseChecks.refuseTranscoding(name, "contentEncoding", blob.getContentEncoding());
        if (blob.getSize() == null || blob.getGeneration() == null) {
            throw new IOException(name + ": the object metadata lacks its size or generation");
        }
        pin.check(new ObjectIdentity(blob.getGeneration(), blob.getSize(), blob.getEtag()));
        return pin.knownSize();
    }

    private void ensureOpen() throws IOException {
        if (closed.get()) {
            throw new IOException(name + ": the source is closed");
        }
    }

    /** @return {@code gs://bucket/object}; the generation is in {@link #attributes()} */
    @Override
    public String name() {
        return name;
    }

    @Override
    public SourceStatistics statistics() {
        return counter.snapshot();
    }

    /** @return {@code version} (the generation, once pinned or asked for) and {@code etag} (once seen) */
    @Override
    public Map<String, String> attributes() {
        ObjectIdentity id = pin.identity();
        Map<String, String> m = new LinkedHashMap<>();
        long generation = id != null ? id.generation() : uri.generation();
        if (generation >= 0) {
            m.put("version", Long.toString(generation));
        }
        if (id != null && id.etag() != null) {
            m.put("etag", id.etag());
        }
        return Map.copyOf(m);
    }

    /** Releases the HTTP transport made for this source; the {@code Storage} client stays open. Idempotent. */
    @Override
    public void close() throws IOException {
        if (closed.compareAndSet(false, true)) {
            media.close();
        }
    }

    @Override
    public String toString() {
        return "GcsSource[" + name + "]";
    }
}
