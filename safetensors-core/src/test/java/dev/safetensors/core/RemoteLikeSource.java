package dev.safetensors.core;

import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceStatistics;
import dev.safetensors.spi.RequestCounter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A file in memory that behaves like a remote source for the read paths: every {@link #read} and every
 * {@link #openRange} counts as one request, the ranges asked for are recorded, and a hook may fail or hold a range
 * when it is opened. Tracks how many ranges are open at once. Thread-safe.
 */
final class RemoteLikeSource implements RandomAccessSource {
    /** Called when a range is opened, before any byte is served; may throw or block. */
    @FunctionalInterface
    interface OpenHook {
        void opened(long position, long length, int attempt) throws IOException;
    }

    private final byte[] bytes;
    private final RequestCounter counter = new RequestCounter();
    private final List<long[]> ranges = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger maxOpen = new AtomicInteger();
    private volatile OpenHook hook = (p, l, a) -> { };

    RemoteLikeSource(byte[] bytes) {
        this.bytes = bytes;
    }

    void hook(OpenHook h) {
        hook = h;
    }

    @Override
    public long size() {
        return bytes.length;
    }

    @Override
    public int read(long position, ByteBuffer dst) {
        if (!dst.hasRemaining()) {
            return 0;
        }
        if (position >= bytes.length) {
            return -1;
        }
        int n = (int) Math.min(dst.remaining(), bytes.length - position);
        dst.put(bytes, (int) position, n);
        counter.request();
        counter.bytes(n);
        return n;
    }

    @Override
    public ReadableByteChannel openRange(long position, long length) throws IOException {
        int attempt;
        synchronized (ranges) {
            attempt = (int) ranges.stream().filter(r -> r[0] == position && r[1] == length).count();
            ranges.add(new long[] {position, length});
        }
        counter.request();
        int now = open.incrementAndGet();
        maxOpen.accumulateAndGet(now, Math::max);
        try {
            hook.opened(position, length, attempt);
        } catch (IOException | RuntimeException e) {
            open.decrementAndGet();
            throw e;
        }
        return new ReadableByteChannel() {
            private long done;
            private boolean closed;

            @Override
            public int read(ByteBuffer dst) {
                if (done == length) {
                    return -1;
                }
                int n = (int) Math.min(dst.remaining(), length - done);
                dst.put(bytes, (int) (position + done), n);
                done += n;
                counter.bytes(n);
                return n;
            }

            @Override
            public boolean isOpen() {
                return !closed;
            }

            @Override
            public void close() {
                if (!closed) {
                    closed = true;
                    open.decrementAndGet();
                }
            }
        };
    }

    /** @return every range opened so far, as {position, length}, in the order they were opened */
    List<long[]> ranges() {
        synchronized (ranges) {
            return new ArrayList<>(ranges);
        }
    }

    /** @return the most ranges that were open at once */
    int maxOpen() {
        return maxOpen.get();
    }

    /** @return the ranges open now */
    int openNow() {
        return open.get();
    }

    @Override
    public String name() {
        return "remote-like";
    }

    @Override
    public SourceStatistics statistics() {
        return counter.snapshot();
    }

    @Override
    public void close() {
        // nothing held
    }
}
