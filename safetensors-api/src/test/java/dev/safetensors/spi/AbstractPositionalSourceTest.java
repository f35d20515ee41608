package dev.safetensors.spi;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import org.junit.jupiter.api.Test;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class AbstractPositionalSourceTest {

    /** Bytes read at most {@code step} at a time, as a short-reading store does; the store may hold more than size. */
    private static final class Bytes extends AbstractPositionalSource {
        private final byte[] data;
        private final int step;
        final AtomicInteger releases = new AtomicInteger();

        Bytes(byte[] data, long size, int step) {
            super("mem://test", size);
            this.data = data;
            this.step = step;
        }

        @Override
        protected int readAt(long position, ByteBuffer dst) {
            if (position >= data.length) {
                return -1;
            }
            int n = (int) Math.min(Math.min(step, dst.remaining()), data.length - position);
            dst.put(data, (int) position, n);
            return n;
        }

        @Override
        protected void release() {
            releases.incrementAndGet();
        }
    }

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) i;
        }
        return b;
    }

    @Test
    void fillsTheBufferAcrossShortReadsAndCountsOneRequest() throws IOException {
        Bytes source = new Bytes(bytes(10), 10, 3);
        ByteBuffer dst = ByteBuffer.allocate(8);
        assertEquals(8, source.read(1, dst));
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, dst.array());
        assertEquals(1, source.statistics().requests());
        assertEquals(8, source.statistics().bytesRead());
    }

    @Test
    void stopsAtTheSizeItWasGivenEvenIfTheStoreGrew() throws IOException {
        Bytes source = new Bytes(bytes(10), 4, 100);
        ByteBuffer dst = ByteBuffer.allocate(8);
        assertEquals(2, source.read(2, dst));
        assertEquals(2, dst.position());
        assertEquals(8, dst.limit());
        assertEquals(-1, source.read(4, ByteBuffer.allocate(1)));
        assertEquals(1, source.statistics().requests());
    }

    @Test
    void emptyBufferAndEndOfObjectCostNothing() throws IOException {
        Bytes source = new Bytes(bytes(4), 4, 4);
        assertEquals(0, source.read(0, ByteBuffer.allocate(0)));
        assertEquals(0, source.read(9, ByteBuffer.allocate(0)));
        assertEquals(-1, source.read(4, ByteBuffer.allocate(1)));
        assertEquals(-1, source.read(Long.MAX_VALUE, ByteBuffer.allocate(1)));
        assertEquals(0, source.statistics().requests());
    }

    @Test
    void aStoreThatShrankEndsTheObjectEarly() throws IOException {
        Bytes source = new Bytes(bytes(2), 6, 6);
        assertEquals(-1, source.read(3, ByteBuffer.allocate(2)));
        ByteBuffer dst = ByteBuffer.allocate(6);
        EOFException eof = assertThrows(EOFException.class, () -> source.readFully(0, dst));
        assertEquals(2, dst.position(), eof.getMessage());
    }

    @Test
    void negativePositionIsAnArgumentError() {
        Bytes source = new Bytes(bytes(4), 4, 4);
        assertThrows(IllegalArgumentException.class, () -> source.read(-1, ByteBuffer.allocate(1)));
    }

    @Test
    void readsAfterCloseFailAndReleaseHappensOnce() throws IOException {
        Bytes source = new Bytes(bytes(4), 4, 4);
        source.close();
        source.close();
        assertEquals(1, source.releases.get());
        StorageException closed = assertThrows(StorageException.class, () -> source.read(0, ByteBuffer.allocate(1)));
        assertEquals(ErrorCode.IO_ERROR, closed.code());
        assertEquals("mem://test", source.name());
        assertEquals(4, source.size());
    }
}
