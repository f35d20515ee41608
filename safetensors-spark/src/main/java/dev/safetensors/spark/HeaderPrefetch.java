package dev.safetensors.spark;

import dev.safetensors.Limits;

import java.io.Closeable;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Reads the headers of a task's files in order, keeping up to {@code ioThreads} reads in flight: a remote header
 * costs one round trip of tens of milliseconds, so one task keeps several connections busy instead of waiting on
 * each in turn. At most {@code ioThreads} results wait unconsumed, so memory stays bounded.
 */
final class HeaderPrefetch implements Closeable {
    private static final AtomicInteger POOLS = new AtomicInteger();
    private final Iterator<String> locations;
    private final Limits limits;
    private final boolean keepOpen;
    private final int window;
    private final ExecutorService pool;
    private final ArrayDeque<Future<HeaderRead>> inFlight = new ArrayDeque<>();

    HeaderPrefetch(List<String> locations, Limits limits, boolean keepOpen, int ioThreads) {
        this.locations = locations.iterator();
        this.limits = limits;
        this.keepOpen = keepOpen;
        this.window = Math.max(1, Math.min(ioThreads, locations.size()));
        int id = POOLS.incrementAndGet();
        AtomicInteger threads = new AtomicInteger();
        this.pool = window == 1 ? null : Executors.newFixedThreadPool(window, r -> {
            Thread t = new Thread(r, "safetensors-header-" + id + "-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    boolean hasNext() {
        return !inFlight.isEmpty() || locations.hasNext();
    }

    /**
     * @return the next file's header read, in the order given
     * @throws InterruptedIOException if the task is cancelled while waiting
     */
    HeaderRead next() throws InterruptedIOException {
        if (pool == null) {
            return HeaderRead.read(locations.next(), limits, keepOpen);
        }
        while (inFlight.size() < window && locations.hasNext()) {
            String location = locations.next();
            inFlight.add(pool.submit(() -> HeaderRead.read(location, limits, keepOpen)));
        }
        Future<HeaderRead> head = inFlight.poll();
        try {
            return head.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException stop = new InterruptedIOException("interrupted while reading headers");
            stop.initCause(e);
            throw stop;
        } catch (ExecutionException e) {
            // HeaderRead.read turns every IOException into a result; what is left is a bug, reported as such
            throw new IllegalStateException("header read failed unexpectedly", e.getCause());
        }
    }

    /** Stops the reads in flight and closes the sources of those that finished. */
    @Override
    public void close() {
        if (pool == null) {
            return;
        }
        pool.shutdownNow();
        try {
            // a read that finished after the interrupt holds an open source: wait (bounded) to close it too
            pool.awaitTermination(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Future<HeaderRead> f : inFlight) {
            if (f.isDone() && !f.isCancelled()) {
                try {
                    f.get().close();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (ExecutionException e) {
                    // never opened a source that needs closing
                }
            }
        }
        inFlight.clear();
    }
}
