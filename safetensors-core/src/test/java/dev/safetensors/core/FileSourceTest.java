package dev.safetensors.core;

import dev.safetensors.Location;
import dev.safetensors.ErrorCode;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.StorageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.file.FileSystemLoopException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FileSourceTest {
    /** Refusing a FIFO needs no reader or writer: if the check came after the open, the open would block. */
    private static final Duration NEVER_BLOCKS = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    @Test
    void aMissingFileIsNoSuchFile() {
        NoSuchFileException e = assertThrows(NoSuchFileException.class,
                () -> FileSource.open(dir.resolve("missing.safetensors")));
        assertEquals(ErrorCode.NOT_FOUND, ErrorCode.of(e));
    }

    @Test
    void aDanglingLinkSaysSo() throws IOException {
        Path link = Files.createSymbolicLink(dir.resolve("link"), dir.resolve("gone"));
        SourceNotFoundException e = assertThrows(SourceNotFoundException.class, () -> FileSource.open(link));
        assertEquals(ErrorCode.NOT_FOUND, e.code());
        assertTrue(e.getMessage().contains("symbolic link"), e.getMessage());
    }

    @Test
    void aLoopOfLinksIsALoop() throws IOException {
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        Files.createSymbolicLink(a, b);
        Files.createSymbolicLink(b, a);
        FileSystemLoopException e = assertThrows(FileSystemLoopException.class, () -> FileSource.open(a));
        assertEquals(ErrorCode.NOT_A_FILE, ErrorCode.of(e));
    }

    @Test
    void aDirectoryIsNotAFile() {
        StorageException e = assertThrows(StorageException.class, () -> FileSource.open(dir));
        assertEquals(ErrorCode.NOT_A_FILE, e.code());
        assertTrue(e.getMessage().contains("directory"), e.getMessage());
    }

    @Test
    void aFifoIsRefusedBeforeItIsOpened() throws Exception {
        Path fifo = Fifo.create(dir.resolve("pipe.safetensors"));
        assertTimeoutPreemptively(NEVER_BLOCKS, () -> {
            StorageException e = assertThrows(StorageException.class, () -> FileSource.open(fifo));
            assertEquals(ErrorCode.NOT_A_FILE, e.code());
            assertTrue(e.getMessage().contains("FIFO"), e.getMessage());
            StorageException header = assertThrows(StorageException.class, () -> Safetensors.readHeader(fifo));
            assertEquals(ErrorCode.NOT_A_FILE, header.code());
            StorageException byUri = assertThrows(StorageException.class, () -> Sources.open(Location.of(fifo.toUri())));
            assertEquals(ErrorCode.NOT_A_FILE, byUri.code());
            StorageException byName = assertThrows(StorageException.class, () -> Sources.open(fifo.toString()));
            assertEquals(ErrorCode.NOT_A_FILE, byName.code());
        });
    }

    @Test
    void aDeviceIsNotAFile() {
        Path zero = Path.of("/dev/zero");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(zero), "no /dev/zero on this system");
        StorageException e = assertThrows(StorageException.class, () -> Safetensors.readHeader(zero));
        assertEquals(ErrorCode.NOT_A_FILE, e.code());
        StorageException byUri = assertThrows(StorageException.class, () -> Sources.open(Location.parse("file:/dev/zero")));
        assertEquals(ErrorCode.NOT_A_FILE, byUri.code());
    }

    @Test
    void anInterruptedReadThrowsKeepsTheFlagAndLeavesTheSourceUsable() throws Exception {
        Path file = dir.resolve("f");
        byte[] content = new byte[4096];
        content[100] = 42;
        Files.write(file, content);
        try (FileSource source = FileSource.open(file)) {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            AtomicReference<Boolean> flagAfter = new AtomicReference<>();
            Thread t = new Thread(() -> {
                Thread.currentThread().interrupt();
                try {
                    source.read(0, ByteBuffer.allocate(16));
                } catch (Throwable e) {
                    thrown.set(e);
                }
                flagAfter.set(Thread.currentThread().isInterrupted());
            });
            t.start();
            t.join();
            assertTrue(thrown.get() instanceof InterruptedIOException, String.valueOf(thrown.get()));
            assertTrue(flagAfter.get());
            ByteBuffer again = ByteBuffer.allocate(1);
            assertEquals(1, source.read(100, again));
            assertArrayEquals(new byte[]{42}, again.array());
        }
    }

    @Test
    void readsAfterCloseFailClearly() throws Exception {
        Path file = dir.resolve("f");
        Files.write(file, new byte[10]);
        FileSource source = FileSource.open(file);
        source.close();
        StorageException e = assertThrows(StorageException.class, () -> source.read(0, ByteBuffer.allocate(1)));
        assertEquals(ErrorCode.IO_ERROR, e.code());
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }

    @Test
    void theSizeIsTheSizeAtOpening() throws Exception {
        Path file = dir.resolve("f");
        Files.write(file, new byte[10]);
        try (FileSource source = FileSource.open(file)) {
            Files.write(file, new byte[20]);
            assertEquals(10, source.size());
            assertEquals(-1, source.read(10, ByteBuffer.allocate(4)));
        }
    }

    @Test
    void aReopenThatFindsAnotherFileReportsTheChange() throws Exception {
        Path file = dir.resolve("f");
        Files.write(file, new byte[64]);
        try (FileSource source = FileSource.open(file)) {
            Path other = Files.write(dir.resolve("other"), filled(64, (byte) 7));
            Files.move(other, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Thread.currentThread().interrupt();
            try {
                assertThrows(InterruptedIOException.class, () -> source.read(0, ByteBuffer.allocate(8)));
            } finally {
                Thread.interrupted();
            }
            dev.safetensors.SourceChangedException e = assertThrows(dev.safetensors.SourceChangedException.class,
                    () -> source.read(0, ByteBuffer.allocate(8)));
            assertEquals(ErrorCode.SOURCE_CHANGED, e.code());
        }
    }

    @Test
    void oneReadersInterruptsNeverDisturbTheOthers() throws Exception {
        Path file = dir.resolve("f");
        byte[] content = new byte[1 << 16];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i * 31 + 7);
        }
        Files.write(file, content);
        int readers = 4;
        int rounds = 2_000;
        try (FileSource source = FileSource.open(file)) {
            assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
                java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(
                        readers + 1);
                try {
                    java.util.List<java.util.concurrent.Future<Integer>> results = new java.util.ArrayList<>();
                    java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(readers + 1);
                    results.add(pool.submit(() -> {
                        // the disturber: every read it makes is interrupted, closing the shared channel
                        start.await();
                        int interrupted = 0;
                        for (int r = 0; r < rounds / 4; r++) {
                            Thread.currentThread().interrupt();
                            try {
                                source.read(r, ByteBuffer.allocate(16));
                            } catch (InterruptedIOException e) {
                                interrupted++;
                            } finally {
                                Thread.interrupted();
                            }
                        }
                        return interrupted;
                    }));
                    for (int t = 0; t < readers; t++) {
                        int seed = t;
                        results.add(pool.submit(() -> {
                            start.await();
                            for (int r = 0; r < rounds; r++) {
                                int position = (r * 977 + seed * 131) % (content.length - 512);
                                ByteBuffer buffer = ByteBuffer.allocate(512);
                                assertEquals(512, source.read(position, buffer));
                                assertArrayEquals(java.util.Arrays.copyOfRange(content, position, position + 512),
                                        buffer.array(), "bytes at " + position);
                            }
                            return rounds;
                        }));
                    }
                    assertTrue(results.get(0).get() > 0, "the disturber's reads were interrupted");
                    for (int t = 1; t <= readers; t++) {
                        assertEquals(rounds, results.get(t).get(), "reader " + t + " read every round");
                    }
                } finally {
                    pool.shutdownNow();
                }
            });
        }
    }

    private static byte[] filled(int n, byte value) {
        byte[] b = new byte[n];
        java.util.Arrays.fill(b, value);
        return b;
    }
}
