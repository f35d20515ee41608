package dev.safetensors.core;

import dev.safetensors.Slice;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.safetensors.core.internal.read.RangeStreamer;

/** Rule 24: an interrupt stops a read between blocks, keeps the flag set, and leaves the file usable. */
@Timeout(60)
class InterruptionTest {
    /** 8 GiB of zeros in a sparse file: far more than a copy gets through before the interrupt lands. */
    private static final long HUGE = 8L << 30;

    @TempDir
    Path dir;

    @Test
    void interruptingAnotherThreadStopsItsCopy() throws Exception {
        Path path = TensorFiles.sparse(dir, SafetensorsFixture.create().tensor("huge", "U8", HUGE)
                .tensor("tail", "U8", 4), HUGE + 4);
        try (SafetensorsFile file = SafetensorsFile.open(path)) {
            CountDownLatch copying = new CountDownLatch(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Boolean> flagAfter = new AtomicReference<>();
            AtomicReference<byte[]> readAfter = new AtomicReference<>();
            Thread copier = new Thread(() -> {
                try {
                    file.copyTensorTo("huge", discarding(copying::countDown));
                } catch (Throwable t) {
                    failure.set(t);
                }
                flagAfter.set(Thread.interrupted());
                try {
                    readAfter.set(file.readBytes("tail").array());
                } catch (IOException e) {
                    failure.set(e);
                }
            });
            copier.start();
            copying.await();
            copier.interrupt();
            copier.join();

            InterruptedIOException e = assertInstanceOf(InterruptedIOException.class, failure.get());
            assertTrue(e.getMessage().contains(path.toString()), e.getMessage());
            assertTrue(flagAfter.get(), "the interrupt flag stays set");
            assertArrayEquals(new byte[4], readAfter.get(), "the same thread reads again once it cleared the flag");
            assertArrayEquals(new byte[4], file.readBytes("tail").array(), "other threads read at once");
        }
    }

    @Test
    void aPendingInterruptStopsBeforeTheNextBlock() throws IOException {
        Path path = TensorFiles.sparse(dir, SafetensorsFixture.create().tensor("huge", "U8", HUGE)
                .tensor("tail", "U8", 4), HUGE + 4);
        try (SafetensorsFile file = SafetensorsFile.open(path)) {
            long[] received = new long[1];
            WritableByteChannel selfInterrupting = discarding(() -> {
                received[0] += RangeStreamer.BLOCK_BYTES;
                if (received[0] == 3L * RangeStreamer.BLOCK_BYTES) {
                    Thread.currentThread().interrupt();
                }
            });
            try {
                InterruptedIOException e = assertThrows(InterruptedIOException.class,
                        () -> file.copyTensorTo("huge", selfInterrupting));
                assertTrue(Thread.currentThread().isInterrupted(), "the flag stays set");
                assertEquals(3 * RangeStreamer.BLOCK_BYTES, e.bytesTransferred, "stopped right after block 3");
                assertEquals(3 * RangeStreamer.BLOCK_BYTES, received[0]);
            } finally {
                Thread.interrupted();
            }
            assertEquals(4, file.copyTensorTo("tail", discarding(() -> { })), "usable afterwards");
        }
    }

    /** A channel that drops what it is given and runs {@code onBlock} after each write. */
    private static WritableByteChannel discarding(Runnable onBlock) {
        return new WritableByteChannel() {
            @Override
            public int write(ByteBuffer src) {
                int n = src.remaining();
                src.position(src.limit());
                onBlock.run();
                return n;
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {
            }
        };
    }

    @Test
    void anInterruptStopsMappedReadsAndSlicesAndLeavesTheFileUsable() throws IOException {
        Path path = dir.resolve("mapped.safetensors");
        Files.write(path, SafetensorsFixture.create().tensor("w", "F32", 512, 512).build());
        try (SafetensorsFile file = SafetensorsFile.open(path)) {
            Thread.currentThread().interrupt();
            try {
                assertThrows(InterruptedIOException.class, () -> file.readFloat32("w"));
                assertTrue(Thread.currentThread().isInterrupted(), "the flag stays set");
                assertThrows(InterruptedIOException.class, () -> file.slice("w", Slice.range(0, 256)).readBytes());
                assertThrows(InterruptedIOException.class,
                        () -> file.readBytes("w", ByteBuffer.allocateDirect(512 * 512 * 4)));
            } finally {
                Thread.interrupted();
            }
            assertEquals(512 * 512, file.readFloat32("w").length, "usable once the flag is cleared");
        }
    }
}
