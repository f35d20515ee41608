package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.SourceChangedException;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.SourceStatistics;
import dev.safetensors.StorageException;
import dev.safetensors.spi.RequestCounter;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * A local file as a {@link RandomAccessSource}: positional {@link FileChannel} reads, no cursor, safe for
 * concurrent reads from many threads.
 *
 * <p>The size is taken once, when the file is opened, and reads stop there, so a file that grows while it is read
 * still looks like the file that was opened.
 *
 * <p>Only regular files are opened. A directory, a FIFO, a socket or a device is refused before anything is opened
 * (opening a FIFO would block until a writer comes; a device never ends), with a {@link StorageException} of code
 * {@link ErrorCode#NOT_A_FILE}; a loop of symbolic links is a {@link FileSystemLoopException} (code
 * {@link ErrorCode#NOT_A_FILE} too, through {@link ErrorCode#of(Throwable)}).
 *
 * <p>Interrupting a thread that is inside a read makes that read throw {@link InterruptedIOException} and leaves the
 * thread's interrupt flag set. A {@code FileChannel} closes itself when a reader is interrupted; the next read, by
 * any thread, reopens the file by its path, so the interruption of one reader never breaks the source for the others
 * or for later reads. The file's identity (its file key, size and modification time) is pinned when the source is
 * opened: a reopen that finds another file at the path, or the same file changed, throws
 * {@link SourceChangedException} instead of reading other bytes.
 */
public final class FileSource implements RandomAccessSource {
    /** Links followed before a chain of symbolic links counts as a loop, as Linux's {@code ELOOP} does. */
    private static final int MAX_LINKS = 40;

    private final Path path;
    private final String name;
    private final long size;
    private final Identity identity;
    private final RequestCounter counter = new RequestCounter();
    private final Object reopenLock = new Object();
    private volatile FileChannel channel;
    private volatile boolean closed;

    private FileSource(Path path, FileChannel channel, Identity identity) {
        this.path = path;
        this.name = path.toString();
        this.channel = channel;
        this.identity = identity;
        this.size = identity.size();
    }

    /** What makes the opened file that file: compared on every reopen. */
    private record Identity(Object fileKey, long size, FileTime modified) {
        static Identity of(BasicFileAttributes a) {
            return new Identity(a.fileKey(), a.size(), a.lastModifiedTime());
        }
    }

    /**
     * Opens a local regular file for reading. The file's type is checked before it is opened, so a FIFO never
     * blocks the caller.
     *
     * @param path the file
     * @return an open source; close it when done
     * @throws NoSuchFileException                  if there is no such file (or a symbolic link leads nowhere)
     * @throws java.nio.file.AccessDeniedException  if it cannot be read
     * @throws FileSystemLoopException              if symbolic links lead in a loop
     * @throws StorageException                     with {@link ErrorCode#NOT_A_FILE} if it is a directory, a FIFO, a
     *                                              socket or a device
     * @throws IOException                          on other failures
     */
    public static FileSource open(Path path) throws IOException {
        BasicFileAttributes before = regularFile(path);
        FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
        try {
            BasicFileAttributes after = Files.readAttributes(path, BasicFileAttributes.class);
            Identity identity = Identity.of(after);
            if (!Objects.equals(before.fileKey(), after.fileKey()) || ch.size() != after.size()) {
                throw new SourceChangedException(path.toString(), "the file was replaced while it was opened");
            }
            return new FileSource(path, ch, identity);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** The attributes of the regular file at the path, or the failure that says what the path is instead. */
    private static BasicFileAttributes regularFile(Path path) throws IOException {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(path, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            if (Files.isSymbolicLink(path)) {
                throw new SourceNotFoundException(path.toString(), "is a symbolic link to a file that does not"
                        + " exist: fix the link or pass the file itself");
            }
            throw e;
        } catch (FileSystemException e) {
            if (isLoop(path)) {
                FileSystemLoopException loop = new FileSystemLoopException(path.toString());
                loop.initCause(e);
                throw loop;
            }
            throw e;
        }
        if (a.isDirectory()) {
            throw new StorageException(ErrorCode.NOT_A_FILE, path.toString(), "is a directory, not a file");
        }
        if (!a.isRegularFile()) {
            throw new StorageException(ErrorCode.NOT_A_FILE, path.toString(), "is not a regular file (a FIFO,"
                    + " socket or device), which would block or never end");
        }
        return a;
    }

    /** Whether following the path's symbolic links never reaches something that is not a link. */
    private static boolean isLoop(Path path) {
        Path current = path;
        Set<Path> seen = new HashSet<>();
        try {
            for (int i = 0; i < MAX_LINKS; i++) {
                if (!Files.isSymbolicLink(current)) {
                    return false;
                }
                if (!seen.add(current.toAbsolutePath().normalize())) {
                    return true;
                }
                Path target = Files.readSymbolicLink(current);
                Path parent = current.toAbsolutePath().getParent();
                current = parent == null ? target : parent.resolve(target);
            }
            return true;
        } catch (IOException | SecurityException e) {
            return false;
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
        return onChannel(ch -> ch.read(dst, position));
    }

    /** A call on the shared channel. */
    @FunctionalInterface
    private interface ChannelCall<T> {
        T on(FileChannel channel) throws IOException;
    }

    /**
     * Makes a call on the shared channel, on a new one when another reader's interrupt took it down (an
     * {@code AsynchronousCloseException} while this call was under way); an interrupt of this thread ends it.
     */
    private <T> T onChannel(ChannelCall<T> call) throws IOException {
        while (true) {
            FileChannel ch = channel;
            try {
                return call.on(ch);
            } catch (ClosedByInterruptException e) {
                // the channel is closed for every reader now; the next call (this thread's or another's) reopens it
                throw interrupted(e);
            } catch (ClosedChannelException e) {
                if (Thread.currentThread().isInterrupted()) {
                    throw interrupted(e);
                }
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
        if (Thread.currentThread().isInterrupted()) {
            // FileChannel.map is interruptible and would close the shared channel: stop before it
            throw new InterruptedIOException(name + ": mapping interrupted");
        }
        return onChannel(ch -> ch.map(FileChannel.MapMode.READ_ONLY, position, length));
    }

    /**
     * @return the open file's size now, which differs from {@link #size()} if another process changed the file; read
     *         before a memory-mapped read, since a mapping past a shrunken end cannot be read
     */
    long currentSize() throws IOException {
        ensureOpen();
        return onChannel(FileChannel::size);
    }

    private InterruptedIOException interrupted(IOException cause) {
        InterruptedIOException ie = new InterruptedIOException(name + ": read interrupted");
        ie.initCause(cause);
        return ie;
    }

    /** Replaces a channel an interrupt closed, if no other reader did already, after checking the file is the same. */
    private void reopen(FileChannel broken) throws IOException {
        synchronized (reopenLock) {
            ensureOpen();
            if (channel != broken) {
                return;
            }
            FileChannel fresh = FileChannel.open(path, StandardOpenOption.READ);
            try {
                if (Thread.currentThread().isInterrupted()) {
                    // an interrupted thread would close the new channel at once: leave the reopen to another read
                    throw interrupted(new ClosedByInterruptException());
                }
                Identity now = Identity.of(Files.readAttributes(path, BasicFileAttributes.class));
                if (!now.equals(identity) || fresh.size() != size) {
                    throw new SourceChangedException(name, "reopened after an interrupted read, the path holds"
                            + " another file, or the file changed (opened: " + describe(identity) + "; now: "
                            + describe(now) + ")");
                }
            } catch (ClosedByInterruptException e) {
                fresh.close();
                throw interrupted(e);
            } catch (IOException | RuntimeException e) {
                fresh.close();
                throw e;
            }
            channel = fresh;
        }
    }

    /**
     * @return the identity pinned when the file was opened (size, modification time, file key) as one line: the
     *         version a download records beside a partial file of it, so a changed file is never resumed
     */
    String version() {
        return "file " + describe(identity);
    }

    private static String describe(Identity i) {
        return i.size() + " bytes, modified " + i.modified() + (i.fileKey() == null ? "" : ", key " + i.fileKey());
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new StorageException(ErrorCode.IO_ERROR, name, "is closed");
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
