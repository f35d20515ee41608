package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.SourceChangedException;
import dev.safetensors.StorageException;
import dev.safetensors.TensorInfo;
import dev.safetensors.fixtures.MemorySource;
import dev.safetensors.fixtures.SafetensorsFixture;
import dev.safetensors.spi.RemotePolicy;
import dev.safetensors.testing.ManualTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Issue 12, item 6: a remote tensor in parts over concurrent requests, in order, bounded, retried, cancelled. */
@Timeout(60)
class ParallelTransferTest {
    private static final int PART = ReadOptions.MIN_PART_SIZE_BYTES;
    /** 16 full parts and a short one. */
    private static final int ELEMENTS = (16 * PART + 400) / 4;
    private static final ReadOptions FOUR = ReadOptions.builder().parallelism(4).partSizeBytes(PART).build();
    private static final byte[] FILE = file();
    private static final byte[] TENSOR = tensorBytes();
    /** The default budget, with a clock that never sleeps. */
    private static final RemotePolicy POLICY = RemotePolicy.builder().time(new ManualTime()).build();

    private static byte[] file() {
        byte[] payload = new byte[4 * ELEMENTS];
        new SplittableRandom(7).nextBytes(payload);
        return TensorFiles.withPayload(SafetensorsFixture.create().tensor("w", "F32", ELEMENTS), payload);
    }

    private static byte[] tensorBytes() {
        return Arrays.copyOfRange(FILE, FILE.length - 4 * ELEMENTS, FILE.length);
    }

    @Test
    void aLargeTensorComesInPartsOverConcurrentRequestsAndInOrder() throws Exception {
        MemorySource source = MemorySource.remoteLike(FILE);
        // the first part waits until another has been opened: the test passes only if parts run at once
        CountDownLatch twoOpen = new CountDownLatch(2);
        source.onOpen((position, length, attempt) -> {
            twoOpen.countDown();
            try {
                if (!twoOpen.await(20, TimeUnit.SECONDS)) {
                    throw new IOException("no second part was requested while the first was open");
                }
            } catch (InterruptedException e) {
                throw new InterruptedIOException();
            }
        });
        try (SafetensorsFile file = SafetensorsFile.open(source, Limits.STRICT, true, FOUR)) {
            TensorInfo t = file.header().tensor("w").orElseThrow();
            long base = file.header().payloadOffset() + t.begin();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            assertEquals(TENSOR.length, file.copyTensorTo("w", Channels.newChannel(out)));
            assertArrayEquals(TENSOR, out.toByteArray());

            List<long[]> ranges = source.ranges();
            assertEquals(17, ranges.size(), "16 full parts and the rest");
            ranges.sort((a, b) -> Long.compare(a[0], b[0])); // opened concurrently, so in any order
            for (int i = 0; i < ranges.size(); i++) {
                assertEquals(base + (long) i * PART, ranges.get(i)[0], "part " + i);
                assertEquals(i < 16 ? PART : 400, ranges.get(i)[1]);
            }
            assertTrue(source.maxOpen() >= 2 && source.maxOpen() <= 4, "at most 4 at once: " + source.maxOpen());

            ByteArrayOutputStream stream = new ByteArrayOutputStream();
            file.copyTensorTo("w", stream);
            assertArrayEquals(TENSOR, stream.toByteArray());
            ByteBuffer bytes = file.readBytes("w");
            assertEquals(ByteBuffer.wrap(TENSOR), bytes);
            float[] floats = file.readFloat32("w");
            assertEquals(ByteBuffer.wrap(TENSOR).order(ByteOrder.LITTLE_ENDIAN).getFloat(4 * 12345), floats[12345]);
            assertEquals(0, source.openNow(), "every range closed");
        }
    }

    @Test
    void parallelismOneKeepsOneStream() throws IOException {
        MemorySource source = MemorySource.remoteLike(FILE);
        ReadOptions one = ReadOptions.builder().parallelism(1).partSizeBytes(PART).build();
        try (SafetensorsFile file = SafetensorsFile.open(source, Limits.STRICT, true, one)) {
            assertArrayEquals(TENSOR, array(file.readBytes("w")));
            assertEquals(1, source.ranges().size());
            assertEquals(TENSOR.length, source.ranges().get(0)[1]);
        }
    }

    @Test
    void aPartWhoseBodyBreaksIsResumedByTheSourceFromTheMissingByte() throws IOException {
        RangedBytesSource source = new RangedBytesSource(FILE, POLICY);
        try (SafetensorsFile file = SafetensorsFile.open(source, Limits.STRICT, true, FOUR)) {
            long third = file.header().payloadOffset() + 2L * PART;
            boolean[] broken = {false};
            source.script((position, length) -> {
                synchronized (broken) {
                    if (position == third && !broken[0]) {
                        broken[0] = true;
                        return new int[] {206, 1000};
                    }
                }
                return new int[] {206, -1};
            });
            int before = source.attempts().size();
            long requestsBefore = source.statistics().requests();
            assertArrayEquals(TENSOR, array(file.readBytes("w")));
            List<long[]> attempts = source.attempts().subList(before, source.attempts().size());
            assertEquals(18, attempts.size(), "17 parts and one resumption");
            assertEquals(17, source.statistics().requests() - requestsBefore, "a resumption is no new request");
            assertEquals(1, attempts.stream().filter(r -> r[0] == third + 1000 && r[1] == PART - 1000).count(),
                    "only the missing bytes are asked again");
        }
    }

    @Test
    void aRunOf503sOnAPartCostsThePolicysAttemptBudgetOnce() throws IOException {
        RangedBytesSource source = new RangedBytesSource(FILE, POLICY);
        try (SafetensorsFile file = SafetensorsFile.open(source, Limits.STRICT, true, FOUR)) {
            long third = file.header().payloadOffset() + 2L * PART;
            source.script((position, length) -> new int[] {position == third ? 503 : 206, -1});
            StorageException e = assertThrows(StorageException.class, () -> file.readBytes("w"));
            assertEquals(ErrorCode.SERVER_ERROR, e.code());
            assertEquals(POLICY.maxAttempts(), source.attempts().stream().filter(r -> r[0] == third).count(),
                    "the policy's budget, not budget x part retries");

            source.script((position, length) -> new int[] {position == third ? 412 : 206, -1});
            int before = source.attempts().size();
            SourceChangedException changed = assertThrows(SourceChangedException.class, () -> file.readBytes("w"));
            assertEquals(ErrorCode.SOURCE_CHANGED, changed.code());
            assertEquals(1, source.attempts().subList(before, source.attempts().size()).stream()
                    .filter(r -> r[0] == third).count(), "a changed object is not asked again");
        }
    }

    @Test
    void interruptingTheReaderCancelsEveryPart() throws Exception {
        MemorySource source = MemorySource.remoteLike(FILE);
        CountDownLatch fourOpen = new CountDownLatch(4);
        CountDownLatch cancelled = new CountDownLatch(4);
        CountDownLatch never = new CountDownLatch(1);
        source.onOpen((position, length, attempt) -> {
            fourOpen.countDown();
            try {
                never.await(30, TimeUnit.SECONDS);
                throw new IOException("the part was not cancelled");
            } catch (InterruptedException e) {
                cancelled.countDown();
                throw new InterruptedIOException("cancelled");
            }
        });
        try (SafetensorsFile file = SafetensorsFile.open(source, Limits.STRICT, true, FOUR)) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Boolean> flag = new AtomicReference<>();
            Thread reader = new Thread(() -> {
                try {
                    file.readBytes("w");
                } catch (Throwable t) {
                    failure.set(t);
                }
                flag.set(Thread.currentThread().isInterrupted());
            });
            reader.start();
            assertTrue(fourOpen.await(20, TimeUnit.SECONDS), "four parts in flight");
            reader.interrupt();
            reader.join(20_000);
            assertInstanceOf(InterruptedIOException.class, failure.get());
            assertTrue(flag.get(), "the interrupt flag stays set");
            assertTrue(cancelled.await(20, TimeUnit.SECONDS), "every part in flight was interrupted");
            assertEquals(4, source.ranges().size(), "no part started after the interrupt");
        }
    }

    private static byte[] array(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }
}
