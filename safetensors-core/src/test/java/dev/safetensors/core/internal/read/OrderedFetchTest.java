package dev.safetensors.core.internal.read;

import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceStatistics;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * One streamed request for a whole span ({@code partBytes} {@link Long#MAX_VALUE}, as a download with parallelism 1
 * asks): a span of more than 2^31 - 1 bytes is delivered whole. Its length was once cast to an {@code int}, so 3 GiB
 * failed with an unchecked exception and exactly 4 GiB delivered nothing, silently.
 */
class OrderedFetchTest {

    /** A source of {@code size} bytes whose reads only advance the buffer: no memory, no copying. */
    private static RandomAccessSource sized(long size) {
        return new RandomAccessSource() {
            @Override
            public long size() {
                return size;
            }

            @Override
            public int read(long position, ByteBuffer dst) {
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
}
