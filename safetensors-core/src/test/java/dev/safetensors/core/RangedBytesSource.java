package dev.safetensors.core;

import dev.safetensors.spi.AbstractRangedSource;
import dev.safetensors.spi.RangeAnswer;
import dev.safetensors.spi.RemotePolicy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A file in memory behind the shared remote base ({@link AbstractRangedSource}): every attempt is recorded, and a
 * script may answer an attempt with a status or cut its body short, so tests see the base's one retry loop at work
 * under the parallel reader. Thread-safe.
 */
final class RangedBytesSource extends AbstractRangedSource<String> {
    /** Decides an attempt's fate: a status other than 206, a body cut after some bytes, or -1 for a whole answer. */
    @FunctionalInterface
    interface Script {
        /**
         * @return {@code [status, cutAfter]}: status 206 or an error status; cutAfter -1 or the bytes sent before the
         *         connection breaks
         */
        int[] answer(long position, long length);
    }

    private final byte[] bytes;
    private final String etag;
    private final List<long[]> attempts = Collections.synchronizedList(new ArrayList<>());
    private volatile Script script = (p, l) -> new int[] {206, -1};

    RangedBytesSource(byte[] bytes, RemotePolicy policy) {
        this("ranged://bytes", bytes, policy);
    }

    RangedBytesSource(String name, byte[] bytes, RemotePolicy policy) {
        this(name, bytes, "\"v1\"", policy);
    }

    /** A source whose object has the given ETag (another ETag is another version of the object). */
    RangedBytesSource(String name, byte[] bytes, String etag, RemotePolicy policy) {
        super(name, policy, null);
        this.bytes = bytes;
        this.etag = etag;
    }

    /** The pinned ETag, as a remote backend reports its object's identity. */
    @Override
    public dev.safetensors.SourceIdentity identity() {
        String pinned = version();
        return new dev.safetensors.SourceIdentity(pinned, null, null, null, null);
    }

    void script(Script s) {
        script = s;
    }

    /** @return every attempt made, as {@code [position, length]} */
    List<long[]> attempts() {
        synchronized (attempts) {
            return new ArrayList<>(attempts);
        }
    }

    @Override
    protected RangeAnswer send(long position, long length, String version) {
        attempts.add(new long[] {position, length});
        counter().exchange();
        int[] fate = script.answer(position, length);
        Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.put("ETag", etag);
        if (fate[0] != 206) {
            return new RangeAnswer(fate[0], headers::get, new ByteArrayInputStream(new byte[0]), () -> { });
        }
        long end = Math.min(bytes.length, position + length);
        headers.put("Content-Range", "bytes " + position + "-" + (end - 1) + "/" + bytes.length);
        int sent = (int) (fate[1] >= 0 ? Math.min(fate[1], end - position) : end - position);
        return new RangeAnswer(206, headers::get, new ByteArrayInputStream(bytes, (int) position, sent), () -> { });
    }

    @Override
    protected String identify(RangeAnswer answer, String version) throws IOException {
        return answer.header("ETag");
    }
}
