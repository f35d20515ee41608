package dev.safetensors.http;

import dev.safetensors.RandomAccessSource;
import dev.safetensors.RangeNotHonouredException;
import dev.safetensors.SourceChangedException;
import dev.safetensors.SourceStatistics;
import dev.safetensors.spi.ContentRange;
import dev.safetensors.spi.RangeVerifier;
import dev.safetensors.spi.RequestCounter;
import dev.safetensors.spi.SourceNames;
import dev.safetensors.spi.VerifiedRangeChannel;

import java.io.EOFException;
import java.io.IOException;
import java.net.MalformedURLException;
import java.io.InputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link RandomAccessSource} over an {@code http(s)://} URL or a Hugging Face Hub file ({@code hf://}), one
 * ranged GET per {@link #read} and per {@link #openRange}.
 *
 * <h2>What is checked</h2>
 * <ul>
 *   <li>Every answer must be 206 with a {@code Content-Range} equal to the bytes asked (and, once known, to the
 *       object size) and a body of exactly that length, with no content coding ({@link RangeVerifier},
 *       {@link VerifiedRangeChannel}). A 200 full body or any mismatch is a {@link RangeNotHonouredException}; the
 *       body is then closed after at most the asked bytes, never drained.</li>
 *   <li>The first answer pins the size, the strong {@code ETag} (sent back as {@code If-Match} to the origin that
 *       gave it, and compared on every answer in case the server ignores it), the Hub's {@code X-Repo-Commit} (an
 *       {@code hf://} source then resolves every later read against that commit instead of the moving branch) and
 *       {@code X-Linked-Etag}. A contradiction, or a 412, is a {@link SourceChangedException}.</li>
 *   <li>A read at or past a known size returns -1 without a request. A 416 whose {@code Content-Range: bytes *}{@code /N}
 *       shows the read starts at or past the end also returns -1; any other 416 is an {@link IOException}
 *       saying the range was not satisfiable.</li>
 *   <li>Error statuses become {@link java.nio.file.NoSuchFileException} (404), {@link java.nio.file.AccessDeniedException}
 *       (401, 403) or {@link IOException}, after the retries {@link HttpSettings} allows for 429 and 5xx.</li>
 * </ul>
 *
 * <p>{@link #statistics()} counts one request per {@code read}, {@code openRange} and size probe, whatever redirect
 * hops and retries it took (the Hub answers each read with a redirect to its CDN: two HTTP exchanges; each exchange is
 * logged at {@code DEBUG} on the {@code dev.safetensors.http} logger). {@link #name()} is the URL without user
 * information, query or fragment, so signed URLs never reach messages or logs.
 *
 * <p>Thread-safe: reads carry no cursor and the pinned identity is updated atomically. Channels returned by
 * {@link #openRange} are for one thread.
 */
public final class HttpSource implements RandomAccessSource {
    private final HttpTransport transport;
    private final URI url;
    private final HubPath hub;
    private final String name;
    private final RequestCounter counter = new RequestCounter();
    private final AtomicReference<PinnedIdentity> pinned = new AtomicReference<>(PinnedIdentity.UNKNOWN);
    private volatile boolean closed;

    private HttpSource(HttpTransport transport, URI url, HubPath hub, String name) {
        this.transport = transport;
        this.url = url;
        this.hub = hub;
        this.name = name;
    }

    /**
     * @param transport the shared transport
     * @param uri       an {@code http}, {@code https} or {@code hf} URI naming one file
     * @throws IOException a {@link MalformedURLException} if the URI is malformed or carries credentials; an
     *                     {@code IOException} if it names a Hub repository instead of a file
     */
    static HttpSource open(HttpTransport transport, URI uri) throws IOException {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (scheme.equals("hf")) {
            HubPath path = HubPath.parse(uri);
            if (path.path().isEmpty()) {
                throw new IOException(SourceNames.redact(uri) + ": names a Hub repository, not a file; use "
                        + "HubRepository to find the files it holds");
            }
            return new HttpSource(transport, null, path, SourceNames.redact(uri));
        }
        if (!(scheme.equals("http") || scheme.equals("https")) || uri.isOpaque() || uri.getHost() == null) {
            throw new MalformedURLException(SourceNames.redact(uri) + ": not an absolute http(s) URL with a host");
        }
        if (uri.getRawUserInfo() != null) {
            throw new MalformedURLException(SourceNames.redact(uri) + ": credentials in the URL are not supported");
        }
        return new HttpSource(transport, uri, null, SourceNames.redact(uri));
    }

    /** @return a source over a Hub file */
    static HttpSource open(HttpTransport transport, HubPath file) {
        return new HttpSource(transport, null, file, SourceNames.redact(file.toUri()));
    }

    @Override
    public long size() throws IOException {
        ensureOpen();
        long known = pinned.get().size();
        if (known >= 0) {
            return known;
        }
        // the size comes with the first ranged answer: ask for one byte (a 416 answers for an empty object)
        try (ReadableByteChannel probe = fetch(0, 1)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            while (probe != null && probe.read(one) >= 0) {
                one.clear();
            }
        }
        return pinned.get().size();
    }

    @Override
    public int read(long position, ByteBuffer dst) throws IOException {
        if (position < 0) {
            throw new IllegalArgumentException("negative position: " + position);
        }
        ensureOpen();
        if (!dst.hasRemaining()) {
            return 0;
        }
        long size = pinned.get().size();
        if (size >= 0 && position >= size) {
            return -1;
        }
        long want = size >= 0 ? Math.min(dst.remaining(), size - position) : dst.remaining();
        try (VerifiedRangeChannel body = fetch(position, want)) {
            if (body == null) {
                return -1;
            }
            int total = 0;
            for (int n; (n = body.read(dst)) > 0; ) {
                total += n;
            }
            // the loop ends at -1 only after the channel has checked that nothing follows the promised bytes
            return total;
        }
    }

    @Override
    public ReadableByteChannel openRange(long position, long length) throws IOException {
        if (position < 0 || length < 0 || position > Long.MAX_VALUE - length) {
            throw new IllegalArgumentException("invalid range: position " + position + ", length " + length);
        }
        ensureOpen();
        long size = pinned.get().size();
        if (size >= 0 && position + length > size) {
            throw pastEnd(position, length, size);
        }
        if (length == 0) {
            return Channels.newChannel(InputStream.nullInputStream());
        }
        VerifiedRangeChannel body = fetch(position, length);
        long total = pinned.get().size();
        if (body == null || position + length > total) {
            if (body != null) {
                body.close();
            }
            throw pastEnd(position, length, total);
        }
        return body;
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
     * @return {@code etag} (the pinned strong ETag), {@code repository} ({@code OWNER/REPO} for a Hub file),
     *         {@code revision} (the commit the Hub resolved to) and {@code linked_etag} (the digest the Hub reported
     *         in {@code X-Linked-Etag}, not one computed here), each only once known
     */
    @Override
    public Map<String, String> attributes() {
        PinnedIdentity id = pinned.get();
        Map<String, String> m = new LinkedHashMap<>();
        if (id.etag() != null) {
            m.put("etag", SourceNames.clip(id.etag().etag()));
        }
        if (hub != null) {
            m.put("repository", hub.repository());
        }
        if (id.commit() != null) {
            m.put("revision", SourceNames.clip(id.commit()));
        }
        if (id.linkedEtag() != null) {
            m.put("linked_etag", SourceNames.clip(id.linkedEtag()));
        }
        return Map.copyOf(m);
    }

    /** @return the Hub commit as the server sent it, or {@code null} before any answer reported one */
    String pinnedCommit() {
        return pinned.get().commit();
    }

    @Override
    public void close() {
        closed = true;
    }

    /**
     * Makes one ranged GET and verifies its answer.
     *
     * @return the verified body, or {@code null} when a 416 showed that {@code position} is at or past the end
     */
    private VerifiedRangeChannel fetch(long position, long length) throws IOException {
        counter.request();
        PinnedIdentity before = pinned.get();
        String range = "bytes=" + position + "-" + (position + length - 1);
        FinalResponse answer = transport.get(name, target(before), range, before.etag(), counter);
        InputStream body = answer.body();
        boolean handedOver = false;
        try {
            VerifiedRangeChannel channel = verify(answer, body, position, length, range, before);
            handedOver = channel != null;
            return channel;
        } finally {
            if (!handedOver) {
                HttpTransport.discard(body);
            }
        }
    }

    private VerifiedRangeChannel verify(FinalResponse answer, InputStream body, long position, long length,
                                        String range, PinnedIdentity before) throws IOException {
        int status = answer.status();
        if (status == 412) {
            throw new SourceChangedException(name, "the server answered 412 Precondition Failed to If-Match "
                    + (before.etag() == null ? "" : SourceNames.clip(before.etag().etag())));
        }
        if (status == 416) {
            long total = ContentRange.unsatisfiedTotal(answer.header("Content-Range")).orElse(-1);
            if (total >= 0) {
                observe(answer, total, false);
                if (position >= total) {
                    return null;
                }
            }
            throw new IOException(name + ": the server answered 416 Range Not Satisfiable to Range: " + range
                    + (total >= 0 ? " although the object has " + total + " bytes" : ", without the object's size"));
        }
        if (status >= 400) {
            throw StatusFailures.of(name, hub, before.commit(), transport.settings().hasToken(), answer);
        }
        ContentRange verified = RangeVerifier.verify(name, status, answer.header("Content-Range"), position, length,
                before.size());
        String coding = answer.header("Content-Encoding");
        if (coding != null && !coding.trim().equalsIgnoreCase("identity")) {
            throw new RangeNotHonouredException(name, "asked for " + range + " but the answer is encoded ("
                    + SourceNames.clip(coding) + "), so its bytes are not the object's");
        }
        observe(answer, verified.total(), true);
        return new VerifiedRangeChannel(name, body, verified.length(), () -> HttpTransport.discard(body), counter);
    }

    private void observe(FinalResponse answer, long total, boolean etagExpected) throws SourceChangedException {
        String etag = answer.header("ETag");
        ETagPin strong = etag != null && etag.startsWith("\"") ? new ETagPin(etag, Origin.of(answer.url())) : null;
        for (;;) {
            PinnedIdentity current = pinned.get();
            PinnedIdentity next = current.merge(name, total, strong, etagExpected, answer.repoCommit(),
                    answer.linkedEtag());
            if (next == current || pinned.compareAndSet(current, next)) {
                return;
            }
        }
    }

    /** A Hub file resolves against the pinned commit once one is known, so the moving branch cannot change it. */
    private URI target(PinnedIdentity id) {
        if (hub == null) {
            return url;
        }
        HubPath at = id.commit() == null ? hub : hub.at(id.commit());
        return at.resolveUrl(transport.settings().hubEndpoint());
    }

    private EOFException pastEnd(long position, long length, long size) {
        return new EOFException(name + ": the range of " + length + " bytes at " + position
                + " ends past the end of the object" + (size >= 0 ? " (" + size + " bytes)" : ""));
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException(name + ": the source is closed");
        }
    }
}
