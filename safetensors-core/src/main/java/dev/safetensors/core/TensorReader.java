package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.StorageException;
import dev.safetensors.TensorInfo;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import dev.safetensors.core.internal.read.BlockSink;
import dev.safetensors.core.internal.read.FetchRanges;
import dev.safetensors.core.internal.read.OrderedFetch;
import dev.safetensors.core.internal.read.RangeStreamer;
import dev.safetensors.core.internal.read.SlicePlan;

/**
 * Chooses how the bytes of a tensor or slice reach their destination, cheapest first:
 * <ol>
 *   <li>from the bytes read with the header, when the tensor lies within them: no request (issue 12, item 5);</li>
 *   <li>from a memory mapping, for a local file and a tensor a buffer addresses: no copy before the destination;</li>
 *   <li>over several concurrent ranged requests ({@link OrderedFetch}), for a remote source when more than one
 *       request is needed and {@link ReadOptions#parallelism()} is above 1;</li>
 *   <li>otherwise one streamed request per range ({@link RangeStreamer}).</li>
 * </ol>
 * Thread-safe.
 */
final class TensorReader {
    /** The largest gap a local read skips by reading through it: one more read costs about as much as copying it. */
    private static final long LOCAL_GAP = RangeStreamer.BLOCK_BYTES;

    private final RandomAccessSource source;
    private final long payloadOffset;
    private final ByteBuffer prefix;
    private final MappedWindows mapping;
    private final ReadOptions options;

    /**
     * @param prefix  payload bytes read with the header, from the payload's first byte; never written
     * @param mapping the file's mappings, or {@code null} for a source that is not a local file
     */
    TensorReader(RandomAccessSource source, long payloadOffset, ByteBuffer prefix, MappedWindows mapping,
                 ReadOptions options) {
        this.source = source;
        this.payloadOffset = payloadOffset;
        this.prefix = prefix;
        this.mapping = mapping;
        this.options = options;
    }

    boolean mappable() {
        return mapping != null;
    }

    /**
     * @return a read-only little-endian view of the tensor's bytes, mapped from the file
     * @throws StorageException {@link ErrorCode#TRUNCATED} if the file is shorter than when it was opened
     */
    ByteBuffer map(TensorInfo t) throws IOException {
        mapping.checkNotTruncated();
        return mapping.view(payloadOffset + t.begin(), (int) t.byteLength());
    }

    /** Reads the runs of {@code plan} into {@code sink}. */
    void read(TensorInfo t, SlicePlan plan, PieceSink sink) throws IOException {
        if (plan.runCount() == 0) {
            return;
        }
        RunScatter scatter = new RunScatter(source.name(), plan.runs(), sink);
        ByteBuffer view = memoryView(t);
        if (view != null) {
            try {
                scatter.accept(0, view);
            } catch (InternalError e) {
                throw truncated(source.name(), e);
            }
            return;
        }
        long base = payloadOffset + t.begin();
        if (parallel()) {
            OrderedFetch.run(source, base, new FetchRanges(plan.runs(), options.coalesceGapBytes(),
                    options.partSizeBytes()), options.parallelism(), options.partSizeBytes(), scatter::accept);
            return;
        }
        long gap = mapping != null ? LOCAL_GAP : options.coalesceGapBytes();
        FetchRanges ranges = new FetchRanges(plan.runs(), gap, Long.MAX_VALUE);
        ByteBuffer block = ByteBuffer.allocate(RangeStreamer.BLOCK_BYTES);
        while (ranges.next()) {
            long[] at = {ranges.start()};
            RangeStreamer.stream(source, base + ranges.start(), ranges.length(), block, b -> {
                int n = b.remaining();
                scatter.accept(at[0], b);
                at[0] += n;
            });
        }
    }

    /**
     * Streams a whole tensor into {@code sink} in blocks of at most {@code block}'s capacity, in order.
     *
     * @param block a heap or direct buffer whose capacity is a multiple of the element size
     */
    void stream(TensorInfo t, ByteBuffer block, BlockSink sink) throws IOException {
        if (t.end() <= prefix.limit()) {
            ByteBuffer src = prefix.duplicate();
            src.limit((int) t.end()).position((int) t.begin());
            feed(src, block, sink);
            return;
        }
        long base = payloadOffset + t.begin();
        if (parallel() && t.byteLength() > options.partSizeBytes()) {
            OrderedFetch.run(source, base, new FetchRanges(SlicePlan.whole(t).runs(), 0, options.partSizeBytes()),
                    options.parallelism(), options.partSizeBytes(), (at, part) -> feed(part, block, sink));
            return;
        }
        RangeStreamer.stream(source, base, t.byteLength(), block, sink);
    }

    /** Feeds {@code src} to {@code sink} through {@code block}, checking the interrupt flag before each block. */
    private void feed(ByteBuffer src, ByteBuffer block, BlockSink sink) throws IOException {
        while (src.hasRemaining()) {
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedIOException(source.name() + ": tensor read interrupted");
            }
            int n = Math.min(block.capacity(), src.remaining());
            block.clear();
            block.put(block.position(), src, src.position(), n).limit(n);
            src.position(src.position() + n);
            sink.accept(block);
        }
    }

    /** @return the tensor's bytes in memory (read with the header, or mapped), or {@code null} */
    private ByteBuffer memoryView(TensorInfo t) throws IOException {
        if (t.end() <= prefix.limit()) {
            return prefix.slice((int) t.begin(), (int) t.byteLength());
        }
        if (mapping != null && t.byteLength() <= Integer.MAX_VALUE) {
            return map(t);
        }
        return null;
    }

    private boolean parallel() {
        return mapping == null && options.parallelism() > 1;
    }

    /**
     * The JVM's report of a fault in a read of a memory mapping, as when another process truncates the file during
     * the read (a truncation before it is caught by {@link MappedWindows#checkNotTruncated()}). It may surface at the
     * read or just after it, so callers catch it around the read and what follows.
     *
     * @return the checked {@link ErrorCode#TRUNCATED} failure to throw instead
     */
    static StorageException truncated(String source, InternalError e) {
        return new StorageException(ErrorCode.TRUNCATED, source, "the file changed size while it was read through"
                + " a memory mapping", e);
    }
}
