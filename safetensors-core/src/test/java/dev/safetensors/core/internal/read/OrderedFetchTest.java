package dev.safetensors.core.internal.read;

import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceStatistics;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ordered fetch. One streamed request for a whole span ({@code partBytes} {@link Long#MAX_VALUE}, as a download with parallelism 1
 * asks): a span of more than 2^31 - 1 bytes is delivered whole. Its length was once cast to an {@code int}, so 3 GiB
 * failed with an unchecked exception and exactly 4 GiB delivered nothing, silently. Parts side by side keep their
 * connections busy while the caller works on an earlier part.
 */
class OrderedFetchTest {

    /** A source of {@code size} bytes whose reads only advance the buffer: no memory, no copying. */
    private static RandomAccessSource sized(long size) {
        return sized(size, position -> { });
    }

    /** The same, telling {@code reads} the position of every read first. */
    private static RandomAccessSource sized(long size, java.util.function.LongConsumer reads) {
        return new RandomAccessSource() {
            @Override
            public long size() {
                return size;
            }

            @Override
            public int read(long position, ByteBuffer dst) {
                reads.accept(position);
                if (position >= size) {
                    return -1;
                }
                int n = (int) Math.min(dst.remaining(), size - position);
                dst.position(dst.position() + n);
                return n;
            }

            @Override
            public String name() {
                return "sized";
            }

            @Override
            public SourceStatistics statistics() {
                return SourceStatistics.NONE;
            }

            @Override
            public void close() {
            }
        };
    }

    @ParameterizedTest
    @ValueSource(longs = {(3L << 30), (4L << 30), (4L << 30) + 12345})
    void oneStreamedRequestDeliversASpanBeyondTwoGibibytesWhole(long size) throws Exception {
        AtomicLong delivered = new AtomicLong();
        AtomicLong next = new AtomicLong();
        OrderedFetch.run(sized(size), 0, FetchRanges.span(size, Long.MAX_VALUE), 1, 8 << 20, (at, bytes) -> {
            assertEquals(next.get(), at, "in order");
            delivered.addAndGet(bytes.remaining());
            next.addAndGet(bytes.remaining());
        });
        assertEquals(size, delivered.get());
    }

    @Test
    void partsSideBySideDeliverEveryByteInOrder() throws Exception {
        long size = (40L << 20) + 7;
        AtomicLong next = new AtomicLong();
        OrderedFetch.run(sized(size), 0, FetchRanges.span(size, 8 << 20), 4, 8 << 20, (at, bytes) -> {
            assertEquals(next.get(), at, "in order");
            next.addAndGet(bytes.remaining());
        });
        assertEquals(size, next.get());
    }

    @Test
    void theNextRangeStartsWhileTheCallerStillWorksOnAnEarlierOne() throws Exception {
        int part = 1 << 20;
        long size = 8L * part;
        java.util.concurrent.CountDownLatch thirdAsked = new java.util.concurrent.CountDownLatch(1);
        AtomicLong furthest = new AtomicLong(-1);
        RandomAccessSource recording = sized(size, position -> {
            long range = position / part;
            furthest.accumulateAndGet(range, Math::max);
            if (range == 2) {
                thirdAsked.countDown();
            }
        });
        boolean[] asked = new boolean[1];
        long[] seenWhileHeld = new long[1];
        AtomicLong next = new AtomicLong();
        OrderedFetch.run(recording, 0, FetchRanges.span(size, part), 2, part, (at, bytes) -> {
            assertEquals(next.get(), at, "in order");
            if (at == 0) {
                try {
                    // bounded: a fetch that waits for the caller before asking for more never asks, and fails
                    asked[0] = thirdAsked.await(10, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                seenWhileHeld[0] = furthest.get();
            }
            next.addAndGet(bytes.remaining());
        });
        assertEquals(size, next.get());
        assertTrue(asked[0], "the third range was asked for while the caller held the first (asked up to range "
                + seenWhileHeld[0] + ")");
        assertTrue(seenWhileHeld[0] <= 4, "no more than 2 x parallelism ranges beyond the one held: asked up to range "
                + seenWhileHeld[0]);
    }
}
