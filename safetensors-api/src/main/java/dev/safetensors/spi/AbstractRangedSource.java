package dev.safetensors.spi;

import dev.safetensors.ErrorCode;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RangeNotHonouredException;
import dev.safetensors.SourceAccessDeniedException;
import dev.safetensors.SourceChangedException;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.SourceStatistics;
import dev.safetensors.StorageException;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The one implementation of the {@link RandomAccessSource} contract for every remote store (S3, GCS, HTTP). A
 * backend supplies only {@link #send}: "make this ranged GET, conditional on this pinned version, and give me the
 * status, headers and body", and {@link #identify}: "what version does this answer report". Everything else is
 * here, the same for every backend:
 *
 * <ul>
 *   <li><b>Arguments and end of object.</b> A negative position is an {@link IllegalArgumentException}. A read at
 *       or past the end returns -1, whether or not the size is known yet (a 416 answer, or the known size, says
 *       so). {@code openRange(p, 0)} is an empty channel without a request, even at the end; a range that ends past
 *       the end is an {@link EOFException}.</li>
 *   <li><b>Verification.</b> A 206 must carry a {@code Content-Range} of exactly the bytes asked and of the size seen
 *       before, a {@code Content-Length} (when sent) equal to it, and a body of exactly that length
 *       ({@link VerifiedRangeChannel}). A 200 is accepted only as a whole object that is no longer than the bytes
 *       asked from position 0 (an object smaller than the read, from a server without range support); any other
 *       200 is a {@link RangeNotHonouredException} and is aborted, never drained.</li>
 *   <li><b>Size and version.</b> The first answer pins the size and the backend's version (ETag, generation,
 *       version id) with a compare-and-set; later requests carry the version as a condition, and a different size
 *       or version, or a 412, is a {@link SourceChangedException}. {@link #size()} before any read is a one-byte
 *       ranged GET, so every backend learns the size the same way.</li>
 *   <li><b>Statuses.</b> 404 and 410 are {@link SourceNotFoundException}, 401 and 403
 *       {@link SourceAccessDeniedException}, 412 {@link SourceChangedException}, 416 the end of the object; 408, 429
 *       and 500, 502, 503, 504 are retried as the {@link RemotePolicy} says and, once it gives up, are a
 *       {@link StorageException} with {@link ErrorCode#SERVER_ERROR} (or {@link ErrorCode#TIMEOUT} when the server
 *       asked to wait longer than allowed). Connection failures are retried the same way and end as
 *       {@link ErrorCode#NETWORK} or {@link ErrorCode#TIMEOUT}.</li>
 *   <li><b>Cost.</b> {@link #statistics()} counts one request per read, range and size probe; the backend counts
 *       the HTTP exchanges it sends through {@link #counter()}.</li>
 * </ul>
 *
 * <p>Thread-safe: reads carry no cursor, the pin is updated atomically, and concurrent {@link #openRange} calls are
 * independent requests. Channels are for one thread each.
 *
 * @param <V> the backend's version of the object (an ETag, a generation), immutable; {@code null} while unknown
 */
public abstract class AbstractRangedSource<V> implements RandomAccessSource {
    private static final System.Logger LOG = System.getLogger("dev.safetensors.spi");
    /** The longest read for which a 200 of undeclared length is read into memory to see whether it is whole. */
    private static final long UNDECLARED_WHOLE_LIMIT = 1024 * 1024;

    private final String name;
    private final RemotePolicy policy;
    private final RequestCounter counter = new RequestCounter();
    private final AtomicReference<Pinned<V>> pinned;
    private volatile boolean closed;

    /**
     * @param name    the name for messages and logs, already free of credentials
     * @param policy  retries and deadlines
     * @param version the version asked for before any answer (a generation or version id in the location), or
     *                {@code null}
     */
    protected AbstractRangedSource(String name, RemotePolicy policy, V version) {
        this.name = name;
        this.policy = policy;
        this.pinned = new AtomicReference<>(new Pinned<>(-1, version));
    }

    /**
     * Sends one ranged GET, {@code Range: bytes=position-(position+length-1)}, once: no retry, no redirect left to
     * the caller. Counts each HTTP exchange it sends on {@link #counter()}.
     *
     * @param position the first byte
     * @param length   the number of bytes, at least 1
     * @param version  the pinned version to make the request conditional on, or {@code null}
     * @return the answer, whatever its status
     * @throws IOException a plain {@code IOException} (or a {@link StorageException} with {@link ErrorCode#NETWORK}
     *                     or {@link ErrorCode#TIMEOUT}) when no answer arrived, which is retried; any other coded
     *                     exception is final
     */
    protected abstract RangeAnswer send(long position, long length, V version) throws IOException;

    /**
     * Checks what a successful answer (206, or 200 with the whole object) says about the object's identity against
     * the pinned version, and the backend's own headers (a content coding, for example).
     *
     * @param answer  the answer
     * @param version the pinned version, or {@code null}
     * @return the version to pin: {@code version} itself when it is already complete
     * @throws IOException a {@link SourceChangedException} if the answer reports another version; any coded failure
     *                     for headers the backend refuses
     */
    protected abstract V identify(RangeAnswer answer, V version) throws IOException;

    /**
     * Turns an error status into its exception, of the code {@link StatusMapping} gives it (the one map every
     * request shares). Backends override it to add what their store tells, keeping the code of the status.
     *
     * @param answer   the answer, its body not yet read (it is aborted after this returns)
     * @param version  the version the request was conditional on, or {@code null}
     * @param attempts how many attempts the request took
     * @return the exception to throw
     */
    protected IOException statusFailure(RangeAnswer answer, V version, int attempts) {
        int status = answer.status();
        String said = "the server answered " + status;
        String message = switch (StatusMapping.code(status)) {
            case NOT_FOUND -> said + ": no such object";
            case ACCESS_DENIED -> said + ": access denied; check the credentials";
            case SOURCE_CHANGED -> "the object changed since it was first read: " + said
                    + " (precondition failed) to a request for version " + (version == null ? "?"
                    : SourceNames.clip(String.valueOf(version)));
            case SERVER_ERROR -> said + " after " + attempts + " attempt" + (attempts == 1 ? "" : "s");
            default -> said + ", not a range of the object";
        };
        return StatusMapping.failure(status, name, message, null);
    }

    /**
     * Releases what the backend holds for this source; called once, by the first {@link #close()}.
     *
     * @throws IOException if releasing fails
     */
    protected void release() throws IOException {
        // nothing by default
    }

    /** @return the counter of this source, for the backend to count exchanges */
    protected final RequestCounter counter() {
        return counter;
    }

    /** @return the retries and deadlines this source follows */
    protected final RemotePolicy policy() {
        return policy;
    }

    /** @return the pinned version, or {@code null} while none is known */
    protected final V version() {
        return pinned.get().version();
    }

    /** @return the pinned size, or -1 before the first answer */
    protected final long knownSize() {
        return pinned.get().size();
    }

    @Override
    public final long size() throws IOException {
        ensureOpen();
        long known = knownSize();
        if (known >= 0) {
            return known;
        }
        counter.request();
        try (VerifiedRangeChannel probe = fetch(0, 1, attempts(1))) {
            if (probe != null) {
                ByteBuffer one = ByteBuffer.allocate(1);
                while (probe.read(one) >= 0) {
                    one.clear();
                }
            }
        }
        return knownSize();
    }

    @Override
    public final int read(long position, ByteBuffer dst) throws IOException {
        if (position < 0) {
            throw new IllegalArgumentException("negative position: " + position);
        }
        ensureOpen();
        if (!dst.hasRemaining()) {
            return 0;
        }
        long size = knownSize();
        if (size >= 0 && position >= size) {
            return -1;
        }
        long want = size >= 0 ? Math.min(dst.remaining(), size - position) : dst.remaining();
        try (ReadableByteChannel body = resumable(position, want)) {
            if (body == null) {
                return -1;
            }
            int total = 0;
            for (int n; (n = body.read(dst)) >= 0; ) {
                total += n;
            }
            return total;
        }
    }

    @Override
    public final ReadableByteChannel openRange(long position, long length) throws IOException {
        if (position < 0 || length < 0 || position > Long.MAX_VALUE - length) {
            throw new IllegalArgumentException("invalid range: position " + position + ", length " + length);
        }
        ensureOpen();
        if (length == 0) {
            return new VerifiedRangeChannel(name, InputStream.nullInputStream(), 0, () -> { }, counter,
                    policy.time(), policy.time().nanoTime(), policy.minimumDeadline().toNanos());
        }
        long size = knownSize();
        if (size >= 0 && position + length > size) {
            throw pastEnd(position, length, size);
        }
        ReadableByteChannel body = resumable(position, length);
        if (body == null) {
            throw pastEnd(position, length, knownSize());
        }
        if (knownSize() < position + length) {
            body.close();
            throw pastEnd(position, length, knownSize());
        }
        return body;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final SourceStatistics statistics() {
        return counter.snapshot();
    }

    /** Marks the source closed (later calls fail) and releases the backend's resources once. Idempotent. */
    @Override
    public final void close() throws IOException {
        if (closed) {
            return;
        }
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        release();
    }

    /** @return whether {@link #close()} was called */
    protected final boolean isClosed() {
        return closed;
    }

    /**
     * One request, counted once: its body streamed through a channel that, when the body breaks midway (a
     * connection reset, a short body, a read timeout), asks again for the bytes not yet received, from the same
     * pinned version, as another attempt of the same request. Sending, status retries and resumptions share one
     * budget of {@link RemotePolicy#maxAttempts()} attempts and one deadline.
     *
     * @return the body, or {@code null} when the answer shows that {@code position} is at or past the end
     */
    private ReadableByteChannel resumable(long position, long length) throws IOException {
        counter.request();
        Attempts attempts = attempts(length);
        VerifiedRangeChannel first = fetch(position, length, attempts);
        if (first == null) {
            return null;
        }
        // the first answer pinned the size: what it promised is what is left of the range before the end
        long promised = Math.min(length, knownSize() - position);
        return new ResumingChannel(position, promised, attempts, first);
    }

    private Attempts attempts(long length) {
        return new Attempts(policy.time().nanoTime(), policy.deadlineFor(length).toNanos());
    }

    /**
     * Attempts of one request: sending, retrying statuses and resuming a broken body.
     *
     * @return the verified body, or {@code null} when the answer shows that {@code position} is at or past the end
     */
    private VerifiedRangeChannel fetch(long position, long length, Attempts attempts) throws IOException {
        TimeSource time = policy.time();
        long started = attempts.started;
        long deadline = attempts.deadline;
        String range = "bytes=" + position + "-" + (position + length - 1);
        for (;;) {
            int attempt = ++attempts.made;
            Pinned<V> before = pinned.get();
            RangeAnswer answer;
            try {
                answer = send(position, length, before.version());
            } catch (IOException e) {
                ErrorCode code = RemotePolicy.noAnswerCode(e);
                if (code == null) {
                    throw e;
                }
                LOG.log(System.Logger.Level.DEBUG, () -> name + " GET " + range + " failed: " + e);
                if (attempt >= policy.maxAttempts()) {
                    throw new StorageException(code, name, "GET " + range + " failed after " + attempt + " attempt"
                            + (attempt == 1 ? "" : "s") + ": " + SourceNames.clip(SourceNames.reason(e)), e);
                }
                pause(attempt, policy.backoff(attempt), "failed (" + e + ")", range, started, deadline);
                continue;
            }
            int status = answer.status();
            if (RemotePolicy.isRetryable(status)) {
                IOException failure = statusFailure(answer, before.version(), attempt);
                answer.abort();
                if (attempt >= policy.maxAttempts()) {
                    throw failure;
                }
                Duration wait = policy.waitBefore(attempt, answer.header("Retry-After"), name, status, failure);
                pause(attempt, wait, "answered " + status, range, started, deadline);
                continue;
            }
            try {
                return accept(answer, position, length, before, started, deadline);
            } catch (IOException | RuntimeException e) {
                answer.abort();
                throw e;
            }
        }
    }

    private void pause(int attempt, Duration wait, String why, String range, long started, long deadline)
            throws IOException {
        TimeSource time = policy.time();
        long left = started + deadline - time.nanoTime();
        if (wait.toNanos() > left) {
            throw new StorageException(ErrorCode.TIMEOUT, name, "GET " + range + " " + why + " on attempt " + attempt
                    + " and the request's deadline of " + Duration.ofNanos(deadline).toSeconds()
                    + " s leaves no time to retry");
        }
        LOG.log(System.Logger.Level.DEBUG, () -> name + " GET " + range + " attempt " + attempt + " " + why
                + ", retrying in " + wait.toMillis() + " ms");
        try {
            time.sleep(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(name + ": interrupted while waiting to retry GET " + range);
        }
    }

    private VerifiedRangeChannel accept(RangeAnswer answer, long position, long length, Pinned<V> before,
                                        long started, long deadline) throws IOException {
        int status = answer.status();
        if (status == 206) {
            // Identity first: a replaced object usually has another size too, and "changed" is the truer report.
            identify(answer, before.version());
            ContentRange range = RangeVerifier.verify(name, status, answer.header("Content-Range"), position, length,
                    before.size());
            long declared = answer.contentLength();
            if (declared >= 0 && declared != range.length()) {
                throw new RangeNotHonouredException(name, "Content-Range " + range + " promises " + range.length()
                        + " bytes but Content-Length is " + declared);
            }
            pin(answer, range.total());
            return channel(answer, range.length(), started, deadline);
        }
        if (status == 200) {
            // Identity first here too: an object the store transforms says so before "range not honoured" does.
            identify(answer, before.version());
            long whole = answer.contentLength();
            if (answer.header("Content-Range") == null && whole >= 0 && (position == 0 ? whole <= length
                    : whole <= position)) {
                // A server without range support sent the whole object, and it is no more than was asked.
                pin(answer, whole);
                if (position >= whole) {
                    answer.abort();
                    return null;
                }
                return channel(answer, whole, started, deadline);
            }
            if (answer.header("Content-Range") == null && whole < 0 && position == 0
                    && length <= UNDECLARED_WHOLE_LIMIT) {
                return undeclaredWhole(answer, length, started, deadline);
            }
            RangeVerifier.verify(name, status, answer.header("Content-Range"), position, length, before.size());
        }
        if (status == 416) {
            long total = ContentRange.unsatisfiedTotal(answer.header("Content-Range")).orElse(position == 0 ? 0 : -1);
            answer.abort();
            if (total >= 0) {
                pinSize(total);
                if (position < total) {
                    throw new RangeNotHonouredException(name, "the server answered 416 Range Not Satisfiable to"
                            + " bytes " + position + "-" + (position + length - 1) + " although the object has "
                            + total + " bytes");
                }
            }
            return null;
        }
        throw statusFailure(answer, before.version(), 1);
    }

    /**
     * A 200 without a declared length (a chunked body) from a server without range support: the body is the whole
     * object, which is acceptable only if it is no longer than asked. At most {@code length + 1} bytes are read to
     * find out; a longer body is refused and aborted.
     */
    private VerifiedRangeChannel undeclaredWhole(RangeAnswer answer, long length, long started, long deadline)
            throws IOException {
        java.io.ByteArrayOutputStream sink = new java.io.ByteArrayOutputStream();
        byte[] chunk = new byte[8192];
        InputStream body = answer.body();
        for (int n; sink.size() <= length && (n = body.read(chunk, 0, (int) Math.min(chunk.length,
                length + 1 - sink.size()))) >= 0; ) {
            sink.write(chunk, 0, n);
            if (policy.time().nanoTime() - started - deadline > 0) {
                throw new StorageException(ErrorCode.TIMEOUT, name, "the transfer took longer than its deadline of "
                        + Duration.ofNanos(deadline).toSeconds() + " s: " + sink.size() + " bytes arrived");
            }
        }
        byte[] held = sink.toByteArray();
        if (held.length > length) {
            throw new RangeNotHonouredException(name, "asked for bytes 0-" + (length - 1) + " but the server answered"
                    + " status 200 with the whole object (range ignored), which is longer");
        }
        pin(answer, held.length);
        // the body has ended: closing it now releases the connection
        answer.body().close();
        return new VerifiedRangeChannel(name, new java.io.ByteArrayInputStream(held), held.length, () -> { },
                counter, policy.time(), started, deadline);
    }

    private VerifiedRangeChannel channel(RangeAnswer answer, long expected, long started, long deadline) {
        return new VerifiedRangeChannel(name, answer.body(), expected, answer::abort, counter, policy.time(),
                started, deadline);
    }

    private void pin(RangeAnswer answer, long size) throws IOException {
        for (;;) {
            Pinned<V> current = pinned.get();
            V version = identify(answer, current.version());
            if (current.size() >= 0 && current.size() != size) {
                throw new SourceChangedException(name, "the object size changed from " + current.size() + " to "
                        + size);
            }
            Pinned<V> next = new Pinned<>(size, version);
            if (next.equals(current) || pinned.compareAndSet(current, next)) {
                return;
            }
        }
    }

    private void pinSize(long size) throws SourceChangedException {
        for (;;) {
            Pinned<V> current = pinned.get();
            if (current.size() >= 0) {
                if (current.size() != size) {
                    throw new SourceChangedException(name, "the object size changed from " + current.size()
                            + " to " + size);
                }
                return;
            }
            if (pinned.compareAndSet(current, new Pinned<>(size, current.version()))) {
                return;
            }
        }
    }

    private EOFException pastEnd(long position, long length, long size) {
        return new EOFException(name + ": the range of " + length + " bytes at " + position
                + " ends past the end of the object" + (size >= 0 ? " (" + size + " bytes)" : ""));
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new StorageException(ErrorCode.IO_ERROR, name, "the source is closed");
        }
    }

    /** The attempts one request has made so far, against one budget and one deadline. Used by one thread. */
    private static final class Attempts {
        final long started;
        final long deadline;
        int made;

        Attempts(long started, long deadline) {
            this.started = started;
            this.deadline = deadline;
        }
    }

    /**
     * The body of one request; a break midway that {@link RemotePolicy#noAnswerCode} allows is resumed from the
     * first byte not received, with a ranged GET conditional on the pinned version, while the request's attempts
     * last.
     */
    private final class ResumingChannel implements ReadableByteChannel {
        private final long position;
        private final long length;
        private final Attempts attempts;
        private VerifiedRangeChannel body;
        private long received;
        private boolean open = true;

        ResumingChannel(long position, long length, Attempts attempts, VerifiedRangeChannel body) {
            this.position = position;
            this.length = length;
            this.attempts = attempts;
            this.body = body;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            if (!open) {
                throw new java.nio.channels.ClosedChannelException();
            }
            int start = dst.position();
            for (;;) {
                int before = dst.position();
                try {
                    int n = body.read(dst);
                    received += dst.position() - before;
                    return n < 0 && dst.position() == start ? -1 : dst.position() - start;
                } catch (IOException e) {
                    // bytes a failing read already stored are kept: the resumed range starts after them
                    received += dst.position() - before;
                    resume(e);
                }
            }
        }

        private void resume(IOException e) throws IOException {
            body.close();
            ErrorCode code = RemotePolicy.noAnswerCode(e);
            if (code == null || received >= length || attempts.made >= policy.maxAttempts()
                    || Thread.currentThread().isInterrupted()) {
                throw e;
            }
            long at = position + received;
            String range = "bytes=" + at + "-" + (position + length - 1);
            pause(attempts.made, policy.backoff(attempts.made), "broke after " + received + " of " + length
                    + " bytes (" + e + ")", range, attempts.started, attempts.deadline);
            VerifiedRangeChannel next = fetch(at, length - received, attempts);
            if (next == null) {
                throw e;
            }
            body = next;
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public void close() throws IOException {
            open = false;
            body.close();
        }
    }

    /** The size and version the answers so far agree on; -1 and {@code null} while unknown. */
    private record Pinned<V>(long size, V version) {
    }
}
