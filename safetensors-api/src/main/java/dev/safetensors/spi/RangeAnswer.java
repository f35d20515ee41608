package dev.safetensors.spi;

import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * What a backend received for one ranged GET: the status, the headers and the body not yet read, and how to drop
 * the connection. The backend hands it to {@link AbstractRangedSource}, which decides everything else. Closing the
 * body normally after it was read to its end releases the connection for reuse; {@link #abort()} drops it without
 * reading what is left. A backend may extend it to carry what its {@link AbstractRangedSource#identify} and
 * {@link AbstractRangedSource#statusFailure} need beyond the headers (the URL a redirect chain ended at, for example).
 */
public class RangeAnswer {
    private final int status;
    private final UnaryOperator<String> headers;
    private final InputStream body;
    private final Runnable abort;

    /**
     * @param status  the HTTP status
     * @param headers the first value of a header by case-insensitive name, or {@code null} when absent
     * @param body    the body, not yet read; an empty stream when there is none
     * @param abort   drops the connection without draining the body; must not throw
     */
    public RangeAnswer(int status, UnaryOperator<String> headers, InputStream body, Runnable abort) {
        this.status = status;
        this.headers = Objects.requireNonNull(headers, "headers");
        this.body = Objects.requireNonNull(body, "body");
        this.abort = Objects.requireNonNull(abort, "abort");
    }

    /** @return the HTTP status */
    public final int status() {
        return status;
    }

    /**
     * @param name a header name, any case
     * @return its first value, or {@code null}
     */
    public final String header(String name) {
        return headers.apply(name);
    }

    /** @return the body, not yet read */
    public final InputStream body() {
        return body;
    }

    /** Drops the connection without reading the rest of the body. */
    public final void abort() {
        abort.run();
        try {
            body.close();
        } catch (IOException ignored) {
            // the connection is already dropped: nothing depends on this close
        }
    }

    /** @return the declared {@code Content-Length}, or -1 when absent or malformed */
    long contentLength() {
        String v = header("Content-Length");
        if (v == null) {
            return -1;
        }
        String t = v.trim();
        if (t.isEmpty() || t.length() > 18 || !t.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        return Long.parseLong(t);
    }
}
