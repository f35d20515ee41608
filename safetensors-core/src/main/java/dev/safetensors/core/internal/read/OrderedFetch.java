package dev.safetensors.core.internal.read;

import dev.safetensors.RandomAccessSource;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.ArrayDeque;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fetches a sequence of ranges over several concurrent {@link RandomAccessSource#openRange} requests and hands them
 * to the caller's thread in order. {@code parallelism} ranges are in flight whenever ranges remain: a range that
 * arrives while the caller still works on an earlier one (hashing it, writing it) waits in its buffer, and the next
 * range starts at once, so the connections never wait for the caller. Each range has a buffer of its own, reused
 * once handed on; at most {@code parallelism} ranges wait beside the {@code parallelism} in flight, so memory stays
 * within {@code 2 x parallelism x partSizeBytes}. Each
 * range is one request of the source, retried (and, when its body breaks midway, resumed) by the source's own policy
 * like any other request ({@link dev.safetensors.spi.RemotePolicy}): there is no second retry loop here, so a part
 * that keeps failing costs the policy's attempt budget once. The first failure ends the whole fetch. Interrupting
 * the caller cancels every range in flight. Every range is verified by the source like any other.
 */
public final class OrderedFetch {
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final ThreadFactory DAEMONS = r -> {
        Thread t = new Thread(r, "safetensors-fetch-" + THREADS.incrementAndGet());
        t.setDaemon(true);
        return t;
    };

    /** Receives each fetched range on the caller's thread, in order. */
    @FunctionalInterface
    public interface RangeSink {
        /**
         * @param at    the range's offset relative to the fetch's base
         * @param bytes the range, between position and limit; valid only during the call
         */
        void accept(long at, ByteBuffer bytes) throws IOException;
    }

    private OrderedFetch() {
    }

    /**
     * @param base        the file position the ranges' offsets are relative to
     * @param ranges      the ranges, each at most {@code partBytes} long
     * @param parallelism how many ranges are in flight at once, at least 1
     * @param partBytes   the length of a full range, whose buffers are reused
     */
    public static void run(RandomAccessSource source, long base, FetchRanges ranges, int parallelism, int partBytes,
                           RangeSink sink) throws IOException {
        if (!ranges.next()) {
            return;
        }
        long firstAt = ranges.start();
        // a long: one streamed request may span more than an int counts (parallelism 1 asks for a whole file)
        long firstLength = ranges.length();
        if (!ranges.next()) {
            // one request: no threads, no part buffer, the bytes stream through one block
            long[] at = {firstAt};
            RangeStreamer.stream(source, base + firstAt, firstLength,
                    ByteBuffer.allocate((int) Math.min(RangeStreamer.BLOCK_BYTES, firstLength)), b -> {
                        int n = b.remaining();
                        sink.accept(at[0], b);
                        at[0] += n;
                    });
            return;
        }
        ExecutorService pool = Executors.newFixedThreadPool(parallelism, DAEMONS);
        ArrayDeque<Part> inFlight = new ArrayDeque<>();
        ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
        // a permit per range fetched (or failed), so that the caller waiting for the head can start another meanwhile
        Semaphore ended = new Semaphore(0);
        try {
            // with several ranges each is at most partBytes long, so it fits the part buffers
            submit(pool, source, base, partBytes, inFlight, free, firstAt, Math.toIntExact(firstLength), ended);
            Refill refill = new Refill(ranges, parallelism);
            while (true) {
                refill.run(pool, source, base, partBytes, inFlight, free, ended);
                Part head = inFlight.peek();
                if (head == null) {
                    return;
                }
                if (!head.done) {
                    awaitAny(source, ended);
                    continue;
                }
                // the head may have ended since the refill counted: count it and start another before its sink
                refill.run(pool, source, base, partBytes, inFlight, free, ended);
                inFlight.poll();
                await(source, head);
                sink.accept(head.at, head.buffer);
                if (head.buffer.capacity() == partBytes) {
                    free.add(head.buffer);
                }
            }
        } finally {
            for (Part p : inFlight) {
                p.future.cancel(true);
            }
            pool.shutdownNow();
        }
    }

    /** Starts ranges while fewer than {@code parallelism} are in flight and fewer than twice that are held. */
    private static final class Refill {
        private final FetchRanges ranges;
        private final int parallelism;
        /** The first range is submitted before the loop, and the second found by {@code next()} is pending. */
        private int running = 1;
        private boolean more = true;
        private boolean pending = true;

        Refill(FetchRanges ranges, int parallelism) {
            this.ranges = ranges;
            this.parallelism = parallelism;
        }

        void run(ExecutorService pool, RandomAccessSource source, long base, int partBytes, ArrayDeque<Part> inFlight,
                 ArrayDeque<ByteBuffer> free, Semaphore ended) {
            for (Part p : inFlight) {
                if (p.done && !p.counted) {
                    p.counted = true;
                    running--;
                }
            }
            while (running < parallelism && inFlight.size() < 2 * parallelism && more) {
                if (!pending && !ranges.next()) {
                    more = false;
                    break;
                }
                pending = false;
                submit(pool, source, base, partBytes, inFlight, free, ranges.start(), Math.toIntExact(ranges.length()),
                        ended);
                running++;
            }
        }
    }

    /** Waits until some range in flight ends. */
    private static void awaitAny(RandomAccessSource source, Semaphore ended) throws InterruptedIOException {
        try {
            ended.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the contract: the flag stays set for the caller to see
            InterruptedIOException ie = new InterruptedIOException(source.name() + ": parallel read interrupted");
            ie.initCause(e);
            throw ie;
        }
    }

    private static void submit(ExecutorService pool, RandomAccessSource source, long base, int partBytes,
                               ArrayDeque<Part> inFlight, ArrayDeque<ByteBuffer> free, long at, int length,
                               Semaphore ended) {
        // full-size buffers are reused; a shorter last range gets a buffer of its own size
        ByteBuffer buffer = length == partBytes && !free.isEmpty() ? free.poll()
                : ByteBuffer.allocate(length);
        Part part = new Part(at, length, buffer);
        part.future = pool.submit(() -> {
            try {
                fetch(source, base, part);
                return null;
            } finally {
                part.done = true;
                ended.release();
            }
        });
        inFlight.add(part);
    }

    private static void await(RandomAccessSource source, Part part) throws IOException {
        try {
            part.future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the contract: the flag stays set for the caller to see
            InterruptedIOException ie = new InterruptedIOException(source.name() + ": parallel read interrupted");
            ie.initCause(e);
            throw ie;
        } catch (CancellationException e) {
            throw new InterruptedIOException(source.name() + ": parallel read cancelled");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IOException(source.name() + ": parallel read failed", cause);
        }
    }

    private static void fetch(RandomAccessSource source, long base, Part part) throws IOException {
        part.buffer.clear().limit(part.length);
        readRange(source, base + part.at, part.buffer);
        part.buffer.flip();
    }

    /** Fills {@code dst} from one streamed range, checking the interrupt flag every block. */
    private static void readRange(RandomAccessSource source, long position, ByteBuffer dst) throws IOException {
        int end = dst.limit();
        try (ReadableByteChannel in = source.openRange(position, dst.remaining())) {
            while (dst.position() < end) {
                if (Thread.currentThread().isInterrupted()) {
                    throw new InterruptedIOException(source.name() + ": part read interrupted");
                }
                dst.limit(Math.min(end, dst.position() + RangeStreamer.BLOCK_BYTES));
                while (dst.hasRemaining()) {
                    if (in.read(dst) < 0) {
                        throw new EOFException(source.name() + ": the object ends at byte "
                                + (position + dst.position()) + ", inside a tensor");
                    }
                }
            }
        } finally {
            dst.limit(end);
        }
    }

    /** One range in flight. */
    private static final class Part {
        final long at;
        final int length;
        final ByteBuffer buffer;
        Future<?> future;
        /** Set when the fetch ended, well or not, before {@code ended} is released (the future completes after). */
        volatile boolean done;
        /** Whether the caller has stopped counting it among the ranges in flight. */
        boolean counted;

        Part(long at, int length, ByteBuffer buffer) {
            this.at = at;
            this.length = length;
            this.buffer = buffer;
        }
    }
}
