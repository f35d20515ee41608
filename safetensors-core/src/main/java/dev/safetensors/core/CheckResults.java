package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.Location;
import dev.safetensors.SourceStatistics;
import dev.safetensors.core.internal.index.IndexAgreement;
import dev.safetensors.core.internal.index.OrderedWindow;

import java.io.IOException;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Optional;

/**
 * The results of {@link SafetensorsClient#check}, in order: each checkpoint's files, then its own result. Files are
 * examined {@link SafetensorsClient#concurrency()} at a time, and reads go on while the consumer waits for a slow
 * earlier one: files are taken from the input only while fewer than that many are read and fewer than four times
 * that many results are in flight or waiting to be taken, so memory holds at most that many results (and one index
 * at a time being judged) however many locations, checkpoints and shards there are. Each checkpoint is judged as its files'
 * results are taken; no source stays open once a file's result is made (a {@link CheckHandler} may keep one in its
 * result, and is given back every result never taken, on {@link #close()}).
 *
 * <p>Not thread-safe: one consumer. Close it, also after taking every result: it stops the reads in flight.
 *
 * @param <T> what each result is: a {@link CheckVerdict}, or a {@link CheckHandler}'s type
 */
public final class CheckResults<T> implements AutoCloseable {
    private final CheckHandler<T> handler;
    private final OrderedWindow<Step, Object> window;
    private T pending;
    /** Whether {@link #pending} is a file's result, the handler's to release if it is never taken. */
    private boolean pendingIsFile;

    /** A checkpoint to check: located, or why it could not be. */
    record Located(Location location, CheckpointFiles files, IOException failure) {
    }

    private sealed interface Step permits FileStep, EndStep {
    }

    private record FileStep(Judging checkpoint, Location file) implements Step {
    }

    private record EndStep(Judging checkpoint) implements Step {
    }

    private record Done<T>(FileStep step, T result) {
    }

    CheckResults(Iterator<Located> checkpoints, CheckHandler<T> handler, int concurrency) {
        this.handler = handler;
        // a checkpoint's end opens nothing: it takes no room from the files' reads
        this.window = new OrderedWindow<>(new Steps(checkpoints), this::work, step -> step instanceof EndStep,
                this::discard, concurrency, "check");
    }

    /**
     * @return whether a result remains
     * @throws IOException if the thread is interrupted ({@link ErrorCode#INTERRUPTED}), or the handler threw
     */
    public boolean hasNext() throws IOException {
        while (pending == null && window.hasNext()) {
            Object made = window.next();
            pendingIsFile = made instanceof Done<?>;
            pending = take(made);
        }
        return pending != null;
    }

    /**
     * @return the next result
     * @throws IOException as {@link #hasNext()}
     * @throws NoSuchElementException if none remains
     */
    public T next() throws IOException {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        T t = pending;
        pending = null;
        return t;
    }

    /** Stops the reads in flight; results made and not taken go back to the handler. */
    @Override
    public void close() {
        window.close();
        if (pending != null && pendingIsFile) {
            // a checkpoint's result holds no source: only a file's is the handler's to release
            handler.discard(pending);
        }
        pending = null;
    }

    private Object work(Step step) {
        if (step instanceof FileStep f) {
            return new Done<>(f, handler.file(f.file(), f.checkpoint().located.files()));
        }
        return step;
    }

    @SuppressWarnings("unchecked")
    private void discard(Object made) {
        if (made instanceof Done<?> d) {
            handler.discard((T) d.result());
        }
    }

    @SuppressWarnings("unchecked")
    private T take(Object made) {
        if (made instanceof Done<?> d) {
            T result = (T) d.result();
            d.step().checkpoint().accept(handler.verdict(result));
            return result;
        }
        return handler.checkpoint(((EndStep) made).checkpoint().verdict());
    }

    /** The input flattened into steps: each checkpoint's files, then its end. */
    private static final class Steps implements Iterator<Step> {
        private final Iterator<Located> checkpoints;
        private Judging current;
        private int nextFile;

        Steps(Iterator<Located> checkpoints) {
            this.checkpoints = checkpoints;
        }

        @Override
        public boolean hasNext() {
            return current != null || checkpoints.hasNext();
        }

        @Override
        public Step next() {
            if (current == null) {
                current = new Judging(checkpoints.next());
                nextFile = 0;
            }
            CheckpointFiles files = current.located.files();
            if (files != null && nextFile < files.shards().size()) {
                return new FileStep(current, files.shards().get(nextFile++));
            }
            Step end = new EndStep(current);
            current = null;
            return end;
        }
    }

    /** One checkpoint being judged, on the consumer's thread, as its files' results are taken in order. */
    private static final class Judging {
        final Located located;
        private final IndexAgreement agreement;
        private int seen;
        private int failed;
        private IOException firstFailure;
        private TensorTotals totals = TensorTotals.NONE;
        private SourceStatistics cost;

        Judging(Located located) {
            this.located = located;
            CheckpointFiles files = located.files();
            this.agreement = files != null && files.isSharded() ? files.index().orElseThrow().agreement() : null;
            this.cost = files == null ? SourceStatistics.NONE : files.cost();
        }

        void accept(ShardVerdict v) {
            int i = seen++;
            cost = cost.plus(v.cost());
            if (v.header().isEmpty()) {
                if (failed++ == 0) {
                    firstFailure = v.failure().orElseThrow();
                }
                return;
            }
            totals = totals.plus(TensorTotals.of(v.header().get()));
            if (agreement != null && failed == 0) {
                agreement.accept(located.files().index().orElseThrow().shards().get(i), v.header().get());
            }
        }

        CheckpointVerdict verdict() {
            CheckpointFiles files = located.files();
            Optional<IOException> failure;
            if (files == null) {
                failure = Optional.of(located.failure());
            } else if (failed > 0) {
                failure = Optional.of(firstFailure);
            } else if (agreement != null) {
                try {
                    agreement.finish();
                    failure = Optional.empty();
                } catch (InvalidHeaderException e) {
                    failure = Optional.of(e);
                }
            } else {
                failure = Optional.empty();
            }
            return new CheckpointVerdict(located.location(), Optional.ofNullable(files), seen, failed, failure,
                    failed == 0 && files != null ? Optional.of(totals) : Optional.empty(), cost);
        }
    }
}
