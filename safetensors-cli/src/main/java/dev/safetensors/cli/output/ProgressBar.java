package dev.safetensors.cli.output;

import java.io.PrintStream;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A one-line progress bar on stderr for long work: bytes or sources done, rate and time left. It appears only when
 * stderr is a terminal and the work has lasted half a second (a quick run prints nothing), redraws five times a
 * second from a daemon thread, and steps aside while results are printed. A disabled bar does nothing.
 */
public final class ProgressBar implements AutoCloseable {
    /** What is counted. */
    public enum Unit {
        /** Bytes, shown as 1.2 GB. */
        BYTES,
        /** Sources (files and shards). */
        SOURCES
    }

    private static final int WIDTH = 24;
    private static final long FIRST_DRAW_MILLIS = 500;

    private final PrintStream err;
    private final AtomicLong total;
    private final Unit unit;
    private final long started = System.nanoTime();
    private final AtomicLong done = new AtomicLong();
    private final AtomicLong second = new AtomicLong();
    private String firstLabel;
    private String secondLabel;
    private final ScheduledExecutorService timer;
    private boolean drawn;
    private boolean closed;

    private ProgressBar(PrintStream err, long total, Unit unit, boolean enabled) {
        this.err = err;
        this.total = new AtomicLong(total);
        this.unit = unit;
        if (enabled) {
            timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "safetensors-progress");
                t.setDaemon(true);
                return t;
            });
            timer.scheduleAtFixedRate(this::draw, FIRST_DRAW_MILLIS, 200, TimeUnit.MILLISECONDS);
        } else {
            timer = null;
        }
    }

    /**
     * @param err     where to draw
     * @param total   how much work there is
     * @param unit    what is counted
     * @param enabled whether to draw at all (stderr is a terminal)
     * @return a running bar
     */
    public static ProgressBar start(PrintStream err, long total, Unit unit, boolean enabled) {
        return new ProgressBar(err, total, unit, enabled);
    }

    /** @return a bar that never draws */
    public static ProgressBar disabled() {
        return new ProgressBar(null, 0, Unit.SOURCES, false);
    }

    /**
     * Shows the work as two labelled passes over the same total (written, then verified): the bar fills over both,
     * and the text gives each figure with its label, never their sum.
     *
     * @param first  the first pass's label, counted by {@link #advance}
     * @param second the second pass's label, counted by {@link #advanceSecond}
     * @return this bar
     */
    public synchronized ProgressBar passes(String first, String second) {
        this.firstLabel = first;
        this.secondLabel = second;
        return this;
    }

    /** @param n more work done in the second pass; callable from any thread */
    public void advanceSecond(long n) {
        second.addAndGet(n);
    }

    /** @param n more work found, for work whose size is learned as it goes; callable from any thread */
    public void grow(long n) {
        total.addAndGet(n);
    }

    /** @param n more work done; callable from any thread */
    public void advance(long n) {
        done.addAndGet(n);
    }

    /**
     * Prints something without the bar in the way: the bar is erased first and redrawn at the next tick.
     *
     * @param print what to print
     */
    public synchronized void printAbove(Runnable print) {
        erase();
        print.run();
    }

    private synchronized void draw() {
        if (closed) {
            return;
        }
        if (firstLabel != null) {
            drawPasses();
            return;
        }
        long now = done.get();
        long total = this.total.get();
        double seconds = (System.nanoTime() - started) / 1e9;
        double rate = now / Math.max(seconds, 1e-3);
        double fraction = total <= 0 ? 0 : Math.min(1.0, (double) now / total);
        int filled = (int) Math.round(fraction * WIDTH);
        StringBuilder sb = new StringBuilder("\r[");
        sb.append("#".repeat(filled)).append(".".repeat(WIDTH - filled)).append("] ");
        sb.append(String.format("%3d%% ", Math.round(fraction * 100)));
        if (unit == Unit.BYTES) {
            sb.append(Readable.bytes(now)).append(" / ").append(Readable.bytes(total)).append("  ")
                    .append(Readable.bytes(Math.round(rate))).append("/s");
        } else {
            sb.append(now).append(" / ").append(total).append(" sources  ")
                    .append(String.format("%.0f", rate)).append("/s");
        }
        if (rate > 0 && now < total) {
            sb.append("  ").append(Readable.duration(Math.round((total - now) / rate))).append(" left");
        }
        err.print(sb.append("\u001b[K"));
        err.flush();
        drawn = true;
    }

    private void drawPasses() {
        long a = done.get();
        long b = second.get();
        long total = this.total.get();
        double fraction = total <= 0 ? 0 : Math.min(1.0, (a + b) / (2.0 * total));
        int filled = (int) Math.round(fraction * WIDTH);
        String line = "\r[" + "#".repeat(filled) + ".".repeat(WIDTH - filled) + "] " + firstLabel + " "
                + Readable.bytes(a) + ", " + secondLabel + " " + Readable.bytes(b) + " of " + Readable.bytes(total);
        err.print(line + "\u001b[K");
        err.flush();
        drawn = true;
    }

    private void erase() {
        if (drawn) {
            err.print("\r\u001b[K");
            err.flush();
            drawn = false;
        }
    }

    /** Stops drawing and erases the bar. */
    @Override
    public synchronized void close() {
        closed = true;
        if (timer != null) {
            timer.shutdownNow();
            erase();
        }
    }
}
