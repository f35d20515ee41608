package dev.safetensors.core.internal.index;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The one ordered, bounded parallel reader: applies a piece of work (a header read, a whole file's check) to each
 * item of an iterator, up to {@code concurrency} at once, and hands the results back in the items' order. Work on
 * later items goes on while the consumer waits for an earlier one: up to {@value #HELD_PER_WORKER} x
 * {@code concurrency} results may be made and waiting to be taken, so one slow item (a request that met a cold
 * connection, a retry) does not leave the other workers idle behind it, and the store keeps seeing
 * {@code concurrency} requests. Items are taken from the iterator only while fewer than {@code concurrency} are being
 * worked on and fewer than that bound of results are held, so however many items there are, memory holds at most
 * {@value #HELD_PER_WORKER} x {@code concurrency} results (headers, open sources). With a concurrency of 1 the work
 * runs on the caller's thread and no thread is started.
 *
 * <p>The work must report its failures in its result; an exception it throws anyway ends the walk with an
 * {@link ErrorCode#IO_ERROR}. {@link #close()} stops the work in flight and hands every result that was made and not
 * taken (now or after the close, by a thread still finishing) to the {@code discard} action, so a result holding an
 * open source is closed; it waits up to {@value #CLOSE_WAIT_SECONDS} s for the interrupted work to end, so that
 * nothing it opened is still open when it returns. Not thread-safe: one consumer.
 *
 * @param <I> the items
 * @param <R> the results
 */
public final class OrderedWindow<I, R> implements AutoCloseable {
    private static final AtomicInteger POOLS = new AtomicInteger();
    /**
     * Longest {@link #close()} waits for the work in flight, interrupted, to end and release what it opened: a read
     * blocked past it is left to end on its own (its result is then discarded by its thread).
     */
    static final long CLOSE_WAIT_SECONDS = 30;
    /**
     * How many results per worker may be held, made or being made, ahead of the consumer. Measured against a store
     * 50 ms away (benchmarks/README.md, "Folders and prefixes"): with one per worker (results waiting counted in the
     * workers' bound) a slow head left the other workers idle, a third of the time at 16 workers.
     */
    public static final int HELD_PER_WORKER = 4;
    /** Put in a slot by {@link #close()}: a result finished after it is discarded by the thread that made it. */
    private static final Object CLOSED = new Object();

    private final Iterator<? extends I> items;
    private final Function<? super I, ? extends R> work;
    private final Predicate<? super I> inline;
    private final Consumer<? super R> discard;
    private final int concurrency;
    private final String what;
    private final ExecutorService pool;
    private final ArrayDeque<Slot> inFlight = new ArrayDeque<>();
    /** Items on the pool whose work has not ended: at most {@link #concurrency}. */
    private final AtomicInteger working = new AtomicInteger();
    /** A permit per piece of work ended, so that the consumer waiting for the head can hand out more meanwhile. */
    private final java.util.concurrent.Semaphore ended = new java.util.concurrent.Semaphore(0);
    private boolean closed;

    /** One item's result: empty until made; {@link #CLOSED} once the window closed. */
    private final class Slot {
        final AtomicReference<Object> result = new AtomicReference<>();
        Future<?> future;
        /** Set when the work ended, before {@link #ended} is released (the future completes only after). */
        volatile boolean finished;
    }

    /**
     * @param items       the items, taken in order on the consumer's thread as room frees up
     * @param work        what to do with one item; it runs on a pool thread (or the caller's, for a concurrency of 1)
     * @param inline      the items whose work is cheap and opens nothing (an end marker): done on the consumer's
     *                    thread as they are taken from the iterator, and not counted in the bound
     * @param discard     what to do with a result that will never be taken (close what it holds open)
     * @param concurrency how many items are worked on, or wait to be taken, at once; 1 or more. At most twice as
     *                    many items, inline ones included, are taken ahead of the consumer
     * @param what        what the work is, for the threads' names and the messages ("shard-header")
     */
    public OrderedWindow(Iterator<? extends I> items, Function<? super I, ? extends R> work,
                         Predicate<? super I> inline, Consumer<? super R> discard, int concurrency, String what) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be at least 1: " + concurrency);
        }
        this.items = Objects.requireNonNull(items, "items");
        this.work = Objects.requireNonNull(work, "work");
        this.inline = Objects.requireNonNull(inline, "inline");
        this.discard = Objects.requireNonNull(discard, "discard");
        this.concurrency = concurrency;
        this.what = what;
        if (concurrency == 1) {
            this.pool = null;
        } else {
            int id = POOLS.incrementAndGet();
            AtomicInteger threads = new AtomicInteger();
            this.pool = Executors.newFixedThreadPool(concurrency, r -> {
                Thread t = new Thread(r, "safetensors-" + what + "-" + id + "-" + threads.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }
    }

    /** @return whether a result remains to be taken */
    public boolean hasNext() {
        return !closed && (!inFlight.isEmpty() || items.hasNext());
    }

    /**
     * @return the next item's result, in the items' order
     * @throws IOException a {@link StorageException} with {@link ErrorCode#INTERRUPTED} if the thread is interrupted
     *                     while waiting (the window is then closed), or with {@link ErrorCode#IO_ERROR} if the work
     *                     threw
     * @throws java.util.NoSuchElementException if none remains
     */
    @SuppressWarnings("unchecked")
    public R next() throws IOException {
        if (!hasNext()) {
            throw new java.util.NoSuchElementException();
        }
        if (pool == null) {
            I item = items.next();
            try {
                return work.apply(item);
            } catch (RuntimeException e) {
                close();
                throw new StorageException(ErrorCode.IO_ERROR, what, "the " + what + " read failed: " + e, e);
            }
        }
        Slot head;
        while (true) {
            fill();
            head = inFlight.peek();
            if (head.finished) {
                inFlight.poll();
                break;
            }
            try {
                // any piece of work ending frees room for another item while the head is still being made
                ended.acquire();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                close();
                throw new StorageException(ErrorCode.INTERRUPTED, what, "interrupted while waiting for the " + what
                        + " reads");
            }
        }
        try {
            head.future.get();
            return (R) head.result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            inFlight.addFirst(head);
            close();
            throw new StorageException(ErrorCode.INTERRUPTED, what, "interrupted while waiting for the " + what
                    + " reads");
        } catch (java.util.concurrent.ExecutionException e) {
            close();
            throw new StorageException(ErrorCode.IO_ERROR, what, "the " + what + " read failed: " + e.getCause(),
                    e.getCause());
        }
    }

    /** Hands out items while fewer than {@code concurrency} are worked on and the results held are under the bound. */
    private void fill() {
        while (working.get() < concurrency && inFlight.size() < HELD_PER_WORKER * concurrency && items.hasNext()) {
            I item = items.next();
            Slot slot = new Slot();
            inFlight.add(slot);
            if (inline.test(item)) {
                slot.result.set(work.apply(item));
                slot.future = java.util.concurrent.CompletableFuture.completedFuture(null);
                slot.finished = true;
                continue;
            }
            working.incrementAndGet();
            slot.future = pool.submit(() -> {
                try {
                    R r = work.apply(item);
                    if (!slot.result.compareAndSet(null, r)) {
                        discard.accept(r);
                    }
                    return null;
                } finally {
                    working.decrementAndGet();
                    slot.finished = true;
                    ended.release();
                }
            });
        }
    }

    /** Stops the work in flight and discards every result made and not taken. */
    @Override
    @SuppressWarnings("unchecked")
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (pool == null) {
            return;
        }
        pool.shutdownNow();
        try {
            pool.awaitTermination(CLOSE_WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Slot s : inFlight) {
            Object made = s.result.getAndSet(CLOSED);
            if (made != null && made != CLOSED) {
                discard.accept((R) made);
            }
        }
        inFlight.clear();
    }
}
