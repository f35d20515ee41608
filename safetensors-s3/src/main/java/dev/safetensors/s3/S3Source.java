package dev.safetensors.s3;

import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceChangedException;
import dev.safetensors.SourceStatistics;
import dev.safetensors.spi.ContentRange;
import dev.safetensors.spi.RangeVerifier;
import dev.safetensors.spi.RequestCounter;
import dev.safetensors.spi.VerifiedRangeChannel;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One S3 object read with ranged GETs, following the {@link RandomAccessSource} contract:
 *
 * <ul>
 *   <li>Each {@link #read} and each {@link #openRange} is one GET with {@code Range: bytes=a-b} for exactly the
 *       bytes asked (clipped to the size once it is known). The answer must be status 206 with a
 *       {@code Content-Range} of exactly that range and of the size seen before, and a body of exactly that
 *       length; anything else is a {@link dev.safetensors.RangeNotHonouredException} and the response is aborted,
 *       never drained.</li>
 *   <li>The first response pins the object: its ETag is sent as {@code If-Match} on every later request, and every
 *       later response must report the same ETag (and version, and size). A change is a
 *       {@link SourceChangedException}. With a {@code versionId} in the {@link S3Location}, every request asks for
 *       that version.</li>
 *   <li>The size is learned from the first GET's {@code Content-Range}; {@link #size()} before any read costs one
 *       HEAD. A read at or past a known size returns -1 without a request.</li>
 *   <li>A missing bucket or object is a {@link java.nio.file.NoSuchFileException}, a refusal an
 *       {@link java.nio.file.AccessDeniedException}, a range starting past the end an {@link EOFException};
 *       server errors and throttling are retried by the client's own bounded retry policy.</li>
 *   <li>Each request is logged at {@link System.Logger.Level#DEBUG} with method, range, status and byte count.</li>
 * </ul>
 *
 * <p>Thread-safe: reads carry no cursor. Closing the source does not close the {@link S3Client}, which belongs to
 * whoever built it.
 */
public final class S3Source implements RandomAccessSource {
    private static final System.Logger LOG = System.getLogger(S3Source.class.getName());

    private final S3Client client;
    private final S3Location location;
    private final String name;
    private final SdkFailureTranslator failures;
    private final RequestCounter counter = new RequestCounter();
    private final AttemptCounter attempts = new AttemptCounter(counter);
    private final AtomicReference<ObjectIdentity> pinned = new AtomicReference<>();
    private volatile boolean open = true;

    private S3Source(S3Client client, S3Location location) {
        this.client = client;
        this.location = location;
        this.name = location.name();
        this.failures = new SdkFailureTranslator(name);
    }

    /**
     * Opens a source over one object. No request is made until the first read or {@link #size()}.
     *
     * <p>A client built by {@link S3ClientOptions} is set up as this backend needs; a client of the caller's own
     * should compute checksums only {@code WHEN_REQUIRED}, since ranged GETs cannot be checked against
     * whole-object checksums.
     *
     * @param client   the client to send requests with; it stays open when the source is closed
     * @param location the object
     * @return the source
     */
    public static S3Source open(S3Client client, S3Location location) {
        return new S3Source(Objects.requireNonNull(client, "client"), Objects.requireNonNull(location, "location"));
    }

    /** @return the object this source reads */
    public S3Location location() {
        return location;
    }

    @Override
    public long size() throws IOException {
        ensureOpen();
        ObjectIdentity known = pinned.get();
        if (known != null) {
            return known.size();
        }
        String request = "HEAD";
        counter.request();
        HeadObjectResponse response;
        try {
            response = client.headObject(HeadObjectRequest.builder()
                    .bucket(location.bucket()).key(location.key()).versionId(location.versionId())
                    .overrideConfiguration(c -> c.addMetricPublisher(attempts)).build());
        } catch (SdkException e) {
            throw failed(request, e);
        }
        int status = response.sdkHttpResponse().statusCode();
        Long length = response.contentLength();
        if (length == null || length < 0) {
            log(request, status + " without a Content-Length");
            throw new IOException(name + ": HEAD answered without a Content-Length, so the size is unknown");
        }
        log(request, status + ", size " + length);
        return pin(request, response.eTag(), response.versionId(), length).size();
    }

    @Override
    public int read(long position, ByteBuffer dst) throws IOException {
        ensureOpen();
        if (position < 0) {
            throw new IllegalArgumentException("negative position: " + position);
        }
        if (!dst.hasRemaining()) {
            return 0;
        }
        long wanted = dst.remaining();
        ObjectIdentity known = pinned.get();
        if (known != null) {
            if (position >= known.size()) {
                return -1;
            }
            wanted = Math.min(wanted, known.size() - position);
        }
        int start = dst.position();
        try (VerifiedRangeChannel body = get(position, wanted).body()) {
            // The channel stops at the verified length; reading on to -1 also checks that nothing follows it.
            int n;
            do {
                n = body.read(dst);
            } while (n >= 0);
        }
        return dst.position() - start;
    }

    @Override
    public ReadableByteChannel openRange(long position, long length) throws IOException {
        ensureOpen();
        if (position < 0 || length < 0 || position > Long.MAX_VALUE - length) {
            throw new IllegalArgumentException("invalid range: position " + position + ", length " + length);
        }
        if (length == 0) {
            return Channels.newChannel(InputStream.nullInputStream());
        }
        ObjectIdentity known = pinned.get();
        if (known != null && position + length > known.size()) {
            throw endsEarly(position, length, known.size());
        }
        Ranged response = get(position, length);
        if (response.range().length() < length) {
            response.body().close();
            throw endsEarly(position, length, response.range().total());
        }
        return response.body();
    }

    private EOFException endsEarly(long position, long length, long size) {
        return new EOFException(name + ": bytes " + position + "-" + (position + length - 1)
                + " were asked but the object has " + size + " bytes");
    }

    /** Sends one ranged GET and verifies everything but the body, which the returned channel verifies as read. */
    private Ranged get(long position, long length) throws IOException {
        String range = "bytes=" + position + "-" + (position + length - 1);
        String request = "GET " + range;
        ObjectIdentity known = pinned.get();
        GetObjectRequest.Builder builder = GetObjectRequest.builder()
                .bucket(location.bucket()).key(location.key()).versionId(location.versionId()).range(range)
                .overrideConfiguration(c -> c.addMetricPublisher(attempts));
        if (known != null) {
            builder.ifMatch(known.etag());
        }
        counter.request();
        ResponseInputStream<GetObjectResponse> body;
        try {
            body = client.getObject(builder.build());
        } catch (SdkException e) {
            throw failed(request, e);
        }
        GetObjectResponse response = body.response();
        int status = response.sdkHttpResponse().statusCode();
        try {
            if (known != null) {
                // A server that ignored If-Match: report the new ETag, not the size mismatch it may also cause.
                requireSameObject(request, known, new ObjectIdentity(response.eTag(), response.versionId(),
                        known.size()));
            }
            ContentRange verified = RangeVerifier.verify(name, status, response.contentRange(), position, length,
                    known == null ? -1 : known.size());
            pin(request, response.eTag(), response.versionId(), verified.total());
            log(request, status + " " + verified + ", " + verified.length() + " bytes");
            return new Ranged(verified, new VerifiedRangeChannel(name, body, verified.length(), body::abort, counter));
        } catch (IOException e) {
            log(request, status + " refused: " + e.getMessage());
            // Aborting closes the connection: a server that ignored the range never costs its whole body.
            body.abort();
            throw e;
        }
    }

    /** Pins the identity a response reports if none is pinned yet, else checks that it is the pinned one. */
    private ObjectIdentity pin(String request, String etag, String versionId, long size)
            throws SourceChangedException {
        ObjectIdentity seen = new ObjectIdentity(etag, versionId, size);
        ObjectIdentity known = pinned.compareAndExchange(null, seen);
        if (known == null) {
            return seen;
        }
        requireSameObject(request, known, seen);
        return known;
    }

    private void requireSameObject(String request, ObjectIdentity known, ObjectIdentity seen)
            throws SourceChangedException {
        Optional<String> difference = known.differenceFrom(seen);
        if (difference.isPresent()) {
            throw new SourceChangedException(name, "the object changed since it was first read: " + request
                    + " was answered but " + difference.get());
        }
    }

    private IOException failed(String request, SdkException e) {
        IOException translated = failures.translate(request, e);
        log(request, "failed: " + translated.getMessage());
        return translated;
    }

    private void log(String request, String outcome) {
        LOG.log(System.Logger.Level.DEBUG, () -> request + " " + name + " -> " + outcome);
    }

    private void ensureOpen() throws IOException {
        if (!open) {
            throw new IOException(name + ": the source is closed");
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public SourceStatistics statistics() {
        return counter.snapshot();
    }

    /**
     * @return {@code etag} and {@code version} of the pinned object once a response was seen; the requested
     *         {@code version} before that
     */
    @Override
    public Map<String, String> attributes() {
        ObjectIdentity known = pinned.get();
        Map<String, String> attributes = new HashMap<>(known == null ? Map.of() : known.attributes());
        if (location.versionId() != null) {
            attributes.putIfAbsent("version", location.versionId());
        }
        return Map.copyOf(attributes);
    }

    /** Marks the source closed; the client stays open, in-flight reads finish. */
    @Override
    public void close() {
        open = false;
    }

    /** A verified response: its range and its body, not yet read. */
    private record Ranged(ContentRange range, VerifiedRangeChannel body) {
    }
}
