package dev.safetensors.spi;

import dev.safetensors.ErrorCode;
import dev.safetensors.RangeNotHonouredException;
import dev.safetensors.StorageException;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RangeVerifierTest {

    @Test
    void acceptsTheExactRangeAndLearnsTheSize() throws Exception {
        ContentRange r = RangeVerifier.verify("s", 206, "bytes 0-131071/1000000", 0, 131072, -1);
        assertEquals(1_000_000, r.total());
        assertEquals(131072, r.length());
    }

    @Test
    void acceptsARangeCutAtTheEndOfTheObject() throws Exception {
        ContentRange r = RangeVerifier.verify("s", 206, "bytes 0-99/100", 0, 131072, -1);
        assertEquals(100, r.length());
    }

    @Test
    void refusesAFullBody() {
        RangeNotHonouredException e = assertThrows(RangeNotHonouredException.class,
                () -> RangeVerifier.verify("s3://b/k", 200, null, 0, 10, -1));
        assertEquals(ErrorCode.RANGE_NOT_HONOURED, e.code());
        assertTrue(e.getMessage().contains("whole object"), e.getMessage());
    }

    @Test
    void refusesShiftedShortAndResizedRanges() {
        assertThrows(RangeNotHonouredException.class, () -> RangeVerifier.verify("s", 206, "bytes 1-10/100", 0, 10, -1));
        assertThrows(RangeNotHonouredException.class, () -> RangeVerifier.verify("s", 206, "bytes 0-8/100", 0, 10, -1));
        assertThrows(RangeNotHonouredException.class, () -> RangeVerifier.verify("s", 206, "bytes 0-10/100", 0, 10, -1));
        assertThrows(RangeNotHonouredException.class, () -> RangeVerifier.verify("s", 206, "bytes 0-9/101", 0, 10, 100));
        assertThrows(RangeNotHonouredException.class, () -> RangeVerifier.verify("s", 206, "garbage", 0, 10, -1));
        assertThrows(RangeNotHonouredException.class, () -> RangeVerifier.verify("s", 206, null, 0, 10, -1));
    }

    @Test
    void channelTakesExactlyThePromisedBytes() throws Exception {
        AtomicBoolean aborted = new AtomicBoolean();
        RequestCounter counter = new RequestCounter();
        VerifiedRangeChannel ch = channel("s", new ByteArrayInputStream(new byte[10]), 10, () -> aborted.set(true), counter);
        ByteBuffer dst = ByteBuffer.allocate(64);
        while (ch.read(dst) >= 0) {
            assertTrue(dst.position() <= 10);
        }
        ch.close();
        assertEquals(10, dst.position());
        assertFalse(aborted.get());
        assertEquals(10, counter.snapshot().bytesRead());
    }

    @Test
    void channelRefusesExtraAndShortBodiesAndAborts() throws Exception {
        AtomicBoolean aborted = new AtomicBoolean();
        VerifiedRangeChannel extra = channel("s", new ByteArrayInputStream(new byte[11]), 10, () -> aborted.set(true), new RequestCounter());
        ByteBuffer dst = ByteBuffer.allocate(64);
        assertThrows(RangeNotHonouredException.class, () -> {
            while (extra.read(dst) >= 0) {
                assertTrue(dst.position() <= 10);
            }
        });
        extra.close();
        assertTrue(aborted.getAndSet(false));

        VerifiedRangeChannel shortBody = channel("s", new ByteArrayInputStream(new byte[9]), 10, () -> aborted.set(true), new RequestCounter());
        StorageException truncated = assertThrows(StorageException.class, () -> {
            while (shortBody.read(ByteBuffer.allocate(64)) >= 0) {
                continue;
            }
        });
        assertEquals(ErrorCode.TRUNCATED, truncated.code());
        assertTrue(truncated.getMessage().contains("the body ended after 9 of 10 promised bytes"),
                truncated.getMessage());
        shortBody.close();
        assertTrue(aborted.get());
    }

    @Test
    void channelClosedEarlyAbortsWithoutDraining() throws Exception {
        AtomicBoolean aborted = new AtomicBoolean();
        int[] served = {0};
        InputStream endless = new InputStream() {
            @Override
            public int read() {
                served[0]++;
                return 1;
            }
        };
        VerifiedRangeChannel ch = channel("s", endless, 1L << 40, () -> aborted.set(true), new RequestCounter());
        ch.read(ByteBuffer.allocate(100));
        ch.close();
        assertTrue(aborted.get());
        assertTrue(served[0] <= 64 * 1024, "read " + served[0]);
    }

    private static VerifiedRangeChannel channel(String name, InputStream body, long expected, Runnable abort,
                                                RequestCounter counter) {
        return new VerifiedRangeChannel(name, body, expected, abort, counter, TimeSource.SYSTEM, System.nanoTime(),
                Long.MAX_VALUE / 4);
    }
}
