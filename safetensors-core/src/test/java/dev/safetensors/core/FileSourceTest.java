package dev.safetensors.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FileSourceTest {
    @TempDir
    Path dir;

    @Test
    void aMissingFileIsNoSuchFile() {
        assertThrows(NoSuchFileException.class, () -> FileSource.open(dir.resolve("missing.safetensors")));
    }

    @Test
    void aDirectoryIsRefusedClearly() {
        FileSystemException e = assertThrows(FileSystemException.class, () -> FileSource.open(dir));
        assertTrue(e.getMessage().contains("directory"), e.getMessage());
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
        IOException e = assertThrows(IOException.class, () -> source.read(0, ByteBuffer.allocate(1)));
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
}
