package dev.safetensors.core;

import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceStatistics;
import dev.safetensors.spi.RequestCounter;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A local file as a {@link RandomAccessSource}: positional {@link FileChannel} reads, no cursor, safe for
 * concurrent reads from many threads.
 *
 * <p>The size is taken once, when the file is opened, and reads stop there, so a file that grows while it is read
 * still looks like the file that was opened.
 *
 * <p>Interrupting a thread that is inside a read makes that read throw {@link InterruptedIOException} and leaves the
 * thread's interrupt flag set. A {@code FileChannel} closes itself when a reader is interrupted; this source then
 * reopens the file, so the interruption of one reader never breaks the source for the others or for later reads.
 */
public final class FileSource implements RandomAccessSource {
    private final Path path;
    private final String name;
    private final long size;
    private final RequestCounter counter = new RequestCounter();
    private final Object reopenLock = new Object();
    private volatile FileChannel channel;
    private volatile boolean closed;

    private FileSource(Path path, FileChannel channel) throws IOException {
        this.path = path;
        this.name = path.toString();
        this.channel = channel;
        this.size = channel.size();
    }

    /**
     * Opens a local file for reading.
     *
     * @param path the file
     * @return an open source; close it when done
     * @throws java.nio.file.NoSuchFileException     if there is no such file
     * @throws java.nio.file.AccessDeniedException   if it cannot be read
     * @throws FileSystemException                   if it is a directory
     * @throws IOException                           on other failures
     */
    public static FileSource open(Path path) throws IOException {
        if (Files.isDirectory(path)) {
            throw new FileSystemException(path.toString(), null, "is a directory, not a .safetensors file");
        }
        FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
        try {
            return new FileSource(path, ch);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** @return the path this source reads */
    public Path path() {
        return path;
    }

    @Override
    public long size() throws IOException {
        ensureOpen();
        return size;
    }

    @Override
    public int read(long position, ByteBuffer dst) throws IOException {
        if (position < 0) {
            throw new IllegalArgumentException("negative position " + position);
        }
        ensureOpen();
        if (!dst.hasRemaining()) {
            return 0;
        }
        if (position >= size) {
            return -1;
        }
        counter.request();
        ByteBuffer window = dst;
        int originalLimit = dst.limit();
        if (dst.remaining() > size - position) {
            window.limit(dst.position() + (int) (size - position));
        }
        int total = 0;
        try {
            while (window.hasRemaining()) {
                int n = readOnce(window, position + total);
                if (n < 0) {
                    break;
                }
                total += n;
            }
        } finally {
            dst.limit(originalLimit);
            counter.bytes(total);
        }
        return total == 0 ? -1 : total;
    }

    private int readOnce(ByteBuffer dst, long position) throws IOException {
        while (true) {
            FileChannel ch = channel;
            try {
                return ch.read(dst, position);
            } catch (ClosedByInterruptException e) {
                reopen(ch);
                InterruptedIOException ie = new InterruptedIOException(name + ": read interrupted");
                ie.initCause(e);
                throw ie;
            } catch (AsynchronousCloseException e) {
                // another reader was interrupted and took the shared channel down with it: retry on a new one
                reopen(ch);
            } catch (ClosedChannelException e) {
                reopen(ch);
            }
        }
    }

    /**
     * Maps {@code length} bytes from {@code position} read-only, for zero-copy tensor views. The mapping is never
     * released explicitly: it lives until the buffer is garbage collected, so it outlives {@link #close()} and no
     * buffer can ever point at unmapped memory.
     *
     * @throws InterruptedIOException if the thread is interrupted (the flag stays set)
     */
    MappedByteBuffer map(long position, long length) throws IOException {
        ensureOpen();
        if (position < 0 || length < 0 || length > Integer.MAX_VALUE || position > size - length) {
            throw new IllegalArgumentException("cannot map " + length + " bytes at " + position + " of " + size);
        }
        while (true) {
            if (Thread.currentThread().isInterrupted()) {
                // FileChannel.map is interruptible and would close the shared channel: stop before it
                throw new InterruptedIOException(name + ": mapping interrupted");
            }
            FileChannel ch = channel;
            try {
                return ch.map(FileChannel.MapMode.READ_ONLY, position, length);
            } catch (ClosedByInterruptException e) {
                reopen(ch);
                InterruptedIOException ie = new InterruptedIOException(name + ": mapping interrupted");
                ie.initCause(e);
                throw ie;
            } catch (ClosedChannelException e) {
                reopen(ch);
            }
        }
    }

    /**
     * @return the open file's size now, which differs from {@link #size()} if another process changed the file; read
     *         before a memory-mapped read, since a mapping past a shrunken end cannot be read
     */
    long currentSize() throws IOException {
        ensureOpen();
        while (true) {
            FileChannel ch = channel;
            try {
                return ch.size();
            } catch (ClosedByInterruptException e) {
                reopen(ch);
                InterruptedIOException ie = new InterruptedIOException(name + ": interrupted");
                ie.initCause(e);
                throw ie;
            } catch (ClosedChannelException e) {
                reopen(ch);
            }
        }
    }

    private void reopen(FileChannel broken) throws IOException {
        synchronized (reopenLock) {
            ensureOpen();
            if (channel == broken) {
                channel = FileChannel.open(path, StandardOpenOption.READ);
            }
        }
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException(name + " is closed");
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public SourceStatistics statistics() {
        return counter.snapshot();
    }

    @Override
    public void close() throws IOException {
        synchronized (reopenLock) {
            closed = true;
            channel.close();
        }
    }

    @Override
    public String toString() {
        return "FileSource[" + name + "]";
    }
}
