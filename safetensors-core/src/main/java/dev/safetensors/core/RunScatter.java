package dev.safetensors.core;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import dev.safetensors.core.internal.read.RangeStreamer;
import dev.safetensors.core.internal.read.RunCursor;

/**
 * Takes the bytes of a tensor's fetched ranges, in file order, and hands each wanted run (or the part of it a block
 * holds) to a {@link PieceSink} at its place in the result; bytes between runs are skipped. Pieces are at most
 * {@link RangeStreamer#BLOCK_BYTES} long, and the thread's interrupt flag is checked before each one.
 */
final class RunScatter {
    private final String source;
    private final RunCursor runs;
    private final PieceSink sink;
    private long runDone;
    private long written;

    RunScatter(String source, RunCursor runs, PieceSink sink) {
        this.source = source;
        this.runs = runs;
        this.sink = sink;
    }

    /**
     * @param at    the tensor offset of {@code block}'s position
     * @param block the next fetched bytes, between position and limit; after every earlier call's bytes and holding
     *              every run byte between them
     * @throws InterruptedIOException if the thread is interrupted
     */
    void accept(long at, ByteBuffer block) throws IOException {
        long end = at + block.remaining();
        while (runs.valid()) {
            long from = runs.offset() + runDone;
            if (from >= end) {
                return;
            }
            if (Thread.currentThread().isInterrupted()) {
                InterruptedIOException e = new InterruptedIOException(source + ": read interrupted after "
                        + written + " bytes");
                e.bytesTransferred = (int) Math.min(Integer.MAX_VALUE, written);
                throw e;
            }
            long to = Math.min(Math.min(runs.offset() + runs.length(), end), from + RangeStreamer.BLOCK_BYTES);
            int n = (int) (to - from);
            sink.put(written, block, block.position() + (int) (from - at), n);
            written += n;
            runDone += n;
            if (runDone == runs.length()) {
                runs.next();
                runDone = 0;
            }
        }
    }
}
