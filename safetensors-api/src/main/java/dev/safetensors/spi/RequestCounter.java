package dev.safetensors.spi;

import dev.safetensors.SourceStatistics;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the requests a source serves, the HTTP exchanges they take and the bytes it receives (see
 * {@link SourceStatistics} for what each means). Thread-safe; cheap on the read path.
 */
public final class RequestCounter {
    private final LongAdder requests = new LongAdder();
    private final LongAdder exchanges = new LongAdder();
    private final LongAdder bytes = new LongAdder();

    /** Creates a counter at zero. */
    public RequestCounter() {
    }

    /** Counts one request made of the source: a read, a range, or a metadata lookup. */
    public void request() {
        requests.increment();
    }

    /** Counts one HTTP request sent: an attempt, a retry or a redirect hop. */
    public void exchange() {
        exchanges.increment();
    }

    /**
     * Counts received bytes.
     *
     * @param n bytes received, ignored unless positive
     */
    public void bytes(long n) {
        if (n > 0) {
            bytes.add(n);
        }
    }

    /** @return the counts so far */
    public SourceStatistics snapshot() {
        return new SourceStatistics(requests.sum(), bytes.sum(), exchanges.sum());
    }
}
