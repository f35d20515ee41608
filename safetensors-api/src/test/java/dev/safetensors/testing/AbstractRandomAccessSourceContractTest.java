package dev.safetensors.testing;

import dev.safetensors.ErrorCode;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.StorageException;
import dev.safetensors.SourceStatistics;
import org.junit.jupiter.api.Test;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The behaviour every {@link RandomAccessSource} owes its callers, as one test class that each backend subclasses
 * (the file source, S3, GCS, HTTP). A subclass only says how to store bytes and open a source over them.
 */
public abstract class AbstractRandomAccessSourceContractTest {

    /**
     * Stores {@code content} as a new object in the backend under test and opens a source over it.
     *
     * @param content the object's bytes
     * @return an open source; the test closes it
     * @throws Exception if the object cannot be stored or opened
     */
    protected abstract RandomAccessSource open(byte[] content) throws Exception;

    /** @return content of {@code n} pseudo-random bytes, the same for the same {@code n} */
    protected static byte[] content(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        return b;
    }

    @Test
    void sizeIsTheObjectSize() throws Exception {
        try (RandomAccessSource s = open(content(1000))) {
            assertEquals(1000, s.size());
        }
    }

    @Test
    void readReturnsTheBytesAtThePosition() throws Exception {
        byte[] c = content(4096);
        try (RandomAccessSource s = open(c)) {
            ByteBuffer dst = ByteBuffer.allocate(100);
            int n = s.read(1000, dst);
            assertEquals(100, n);
            assertArrayEquals(Arrays.copyOfRange(c, 1000, 1100), dst.array());
        }
    }

    @Test
    void readIntoTheMiddleOfABufferHonoursPositionAndLimit() throws Exception {
        byte[] c = content(256);
        try (RandomAccessSource s = open(c)) {
            ByteBuffer dst = ByteBuffer.allocate(64);
            dst.position(10).limit(20);
            assertEquals(10, s.read(5, dst));
            assertEquals(20, dst.position());
            assertArrayEquals(Arrays.copyOfRange(c, 5, 15), Arrays.copyOfRange(dst.array(), 10, 20));
            assertEquals(0, dst.array()[9]);
            assertEquals(0, dst.array()[20]);
        }
    }

    @Test
    void readIsShortOnlyAtTheEnd() throws Exception {
        byte[] c = content(300);
        try (RandomAccessSource s = open(c)) {
            ByteBuffer dst = ByteBuffer.allocate(128);
            int n = s.read(250, dst);
            assertEquals(50, n);
            assertArrayEquals(Arrays.copyOfRange(c, 250, 300), Arrays.copyOf(dst.array(), 50));
        }
    }

    @Test
    void readAtOrPastTheEndReturnsMinusOne() throws Exception {
        try (RandomAccessSource s = open(content(64))) {
            assertEquals(64, s.size());
            assertEquals(-1, s.read(64, ByteBuffer.allocate(8)));
            assertEquals(-1, s.read(1000, ByteBuffer.allocate(8)));
        }
    }

    @Test
    void readFullyFillsTheBufferOrThrowsEof() throws Exception {
        byte[] c = content(500);
        try (RandomAccessSource s = open(c)) {
            ByteBuffer dst = ByteBuffer.allocate(500);
            s.readFully(0, dst);
            assertArrayEquals(c, dst.array());
            assertThrows(EOFException.class, () -> s.readFully(400, ByteBuffer.allocate(101)));
        }
    }

    @Test
    void emptyObjectHasSizeZero() throws Exception {
        try (RandomAccessSource s = open(new byte[0])) {
            assertEquals(0, s.size());
            assertEquals(-1, s.read(0, ByteBuffer.allocate(8)));
        }
    }

    @Test
    void openRangeStreamsExactlyTheRange() throws Exception {
        byte[] c = content(200_000);
        try (RandomAccessSource s = open(c);
             ReadableByteChannel ch = s.openRange(12_345, 150_000)) {
            byte[] got = drain(ch, 150_000);
            assertArrayEquals(Arrays.copyOfRange(c, 12_345, 162_345), got);
        }
    }

    @Test
    void openRangeOfZeroBytesEndsAtOnce() throws Exception {
        try (RandomAccessSource s = open(content(10));
             ReadableByteChannel ch = s.openRange(5, 0)) {
            assertEquals(-1, ch.read(ByteBuffer.allocate(4)));
        }
    }

    @Test
    void openRangePastTheEndFails() throws Exception {
        try (RandomAccessSource s = open(content(100))) {
            assertEquals(100, s.size());
            assertThrows(EOFException.class, () -> {
                try (ReadableByteChannel ch = s.openRange(50, 100)) {
                    drain(ch, 100);
                }
            });
        }
    }

    @Test
    void closingARangeEarlyIsAllowed() throws Exception {
        byte[] c = content(300_000);
        try (RandomAccessSource s = open(c)) {
            try (ReadableByteChannel ch = s.openRange(0, 300_000)) {
                ByteBuffer small = ByteBuffer.allocate(10);
                while (small.hasRemaining()) {
                    assertTrue(ch.read(small) >= 0);
                }
                assertArrayEquals(Arrays.copyOf(c, 10), small.array());
            }
            ByteBuffer again = ByteBuffer.allocate(10);
            s.readFully(100, again);
            assertArrayEquals(Arrays.copyOfRange(c, 100, 110), again.array());
        }
    }

    @Test
    void concurrentReadsSeeTheirOwnBytes() throws Exception {
        byte[] c = content(64 * 1024);
        try (RandomAccessSource s = open(c)) {
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<Boolean>> results = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    int seed = t;
                    results.add(pool.submit(() -> {
                        Random r = new Random(seed);
                        for (int i = 0; i < 20; i++) {
                            int pos = r.nextInt(c.length - 512);
                            ByteBuffer dst = ByteBuffer.allocate(1 + r.nextInt(511));
                            s.readFully(pos, dst);
                            if (!Arrays.equals(Arrays.copyOfRange(c, pos, pos + dst.capacity()), dst.array())) {
                                return false;
                            }
                        }
                        return true;
                    }));
                }
                for (Future<Boolean> f : results) {
                    assertTrue(f.get(60, TimeUnit.SECONDS));
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void statisticsCountEachReadAndItsBytes() throws Exception {
        try (RandomAccessSource s = open(content(1000))) {
            s.size();
            SourceStatistics before = s.statistics();
            int n = s.read(10, ByteBuffer.allocate(90));
            SourceStatistics after = s.statistics();
            assertEquals(90, n);
            assertEquals(1, after.requests() - before.requests(), "one read is one request");
            assertEquals(90, after.bytesRead() - before.bytesRead());
        }
    }

    @Test
    void nameIsNonEmptyAndCarriesNoQuery() throws Exception {
        try (RandomAccessSource s = open(content(8))) {
            assertFalse(s.name().isBlank());
            assertFalse(s.name().contains("?"), s.name());
        }
    }

    @Test
    void closeIsIdempotentAndAClosedSourceRefusesReads() throws Exception {
        RandomAccessSource s = open(content(8));
        assertEquals(8, s.read(0, ByteBuffer.allocate(8)));
        s.close();
        s.close();
        StorageException read = assertThrows(StorageException.class, () -> s.read(0, ByteBuffer.allocate(8)));
        assertEquals(ErrorCode.IO_ERROR, read.code(), read.toString());
        StorageException range = assertThrows(StorageException.class, () -> {
            try (ReadableByteChannel ch = s.openRange(0, 4)) {
                ch.read(ByteBuffer.allocate(4));
            }
        }, "a range of a closed source fails when opened or at its first read");
        assertEquals(ErrorCode.IO_ERROR, range.code(), range.toString());
        assertFalse(s.name().isBlank(), "the name outlives the source, for messages");
    }

    @Test
    void readAtOrPastTheEndBeforeTheSizeIsKnownReturnsMinusOne() throws Exception {
        byte[] c = content(64);
        try (RandomAccessSource s = open(c)) {
            assertEquals(-1, s.read(64, ByteBuffer.allocate(8)), "at the end, size not yet known");
        }
        try (RandomAccessSource s = open(c)) {
            assertEquals(-1, s.read(1000, ByteBuffer.allocate(8)), "past the end, size not yet known");
            assertEquals(64, s.size());
        }
        try (RandomAccessSource s = open(new byte[0])) {
            assertEquals(-1, s.read(0, ByteBuffer.allocate(8)), "an empty object, size not yet known");
            assertEquals(0, s.size());
        }
    }

    @Test
    void aReadLongerThanTheObjectBeforeTheSizeIsKnownReturnsWhatThereIs() throws Exception {
        byte[] c = content(100);
        try (RandomAccessSource s = open(c)) {
            ByteBuffer dst = ByteBuffer.allocate(128 * 1024);
            assertEquals(100, s.read(0, dst), "the library's first read: a 128 KiB prefix of a small object");
            assertArrayEquals(c, Arrays.copyOf(dst.array(), 100));
            assertEquals(100, s.size());
        }
    }

    @Test
    void openRangeOfZeroBytesAtTheEndIsEmpty() throws Exception {
        try (RandomAccessSource s = open(content(10))) {
            try (ReadableByteChannel ch = s.openRange(10, 0)) {
                assertEquals(-1, ch.read(ByteBuffer.allocate(4)), "before the size is known");
            }
            assertEquals(10, s.size());
            try (ReadableByteChannel ch = s.openRange(10, 0)) {
                assertEquals(-1, ch.read(ByteBuffer.allocate(4)), "after");
            }
        }
    }

    @Test
    void openRangePastTheEndFailsBeforeTheSizeIsKnown() throws Exception {
        try (RandomAccessSource s = open(content(100))) {
            assertThrows(EOFException.class, () -> {
                try (ReadableByteChannel ch = s.openRange(50, 100)) {
                    drain(ch, 100);
                }
            });
        }
    }

    /** The library's own pattern: read a tensor's exact length, never asking for the end, then close. */
    @Test
    void exactLengthReadsOfRangesWithoutReadingToTheEnd() throws Exception {
        byte[] c = content(300_000);
        try (RandomAccessSource s = open(c)) {
            int[][] ranges = {{0, 8}, {8, 70_000}, {70_008, 1}, {70_009, 229_991}};
            for (int[] r : ranges) {
                ByteBuffer dst = ByteBuffer.allocate(r[1]);
                try (ReadableByteChannel ch = s.openRange(r[0], r[1])) {
                    while (dst.hasRemaining()) {
                        assertTrue(ch.read(dst) >= 0, "the range ends early");
                    }
                }
                assertArrayEquals(Arrays.copyOfRange(c, r[0], r[0] + r[1]), dst.array());
            }
            assertEquals(ranges.length, s.statistics().requests(), "one request per range");
            assertEquals(300_000, s.statistics().bytesRead(), "no byte read twice or beyond a range");
        }
    }

    @Test
    void concurrentRangesSeeTheirOwnBytes() throws Exception {
        byte[] c = content(256 * 1024);
        try (RandomAccessSource s = open(c)) {
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<byte[]>> parts = new ArrayList<>();
                for (int p = 0; p < 8; p++) {
                    int at = p * 32 * 1024;
                    parts.add(pool.submit(() -> {
                        try (ReadableByteChannel ch = s.openRange(at, 32 * 1024)) {
                            ByteBuffer dst = ByteBuffer.allocate(32 * 1024);
                            while (dst.hasRemaining()) {
                                if (ch.read(dst) < 0) {
                                    throw new EOFException("range at " + at + " ended early");
                                }
                            }
                            return dst.array();
                        }
                    }));
                }
                for (int p = 0; p < 8; p++) {
                    assertArrayEquals(Arrays.copyOfRange(c, p * 32 * 1024, (p + 1) * 32 * 1024),
                            parts.get(p).get(60, TimeUnit.SECONDS));
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    /** Reads a channel to its end, failing if it yields more than {@code max} bytes. */
    protected static byte[] drain(ReadableByteChannel ch, int max) throws IOException {
        ByteBuffer all = ByteBuffer.allocate(max + 1);
        while (ch.read(all) >= 0) {
            if (!all.hasRemaining()) {
                throw new AssertionError("channel yields more than " + max + " bytes");
            }
        }
        return Arrays.copyOf(all.array(), all.position());
    }
}
