package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import dev.safetensors.spi.TimeSource;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The exclusive lock on one blob of a {@link HubCache}, held while the blob is downloaded, verified, renamed into
 * place and linked from its snapshot. The lock file is where {@code huggingface_hub} keeps its own,
 * {@code ROOT/.locks/models--NAMESPACE--REPO/ETAG.lock}; it is an empty file, left in place after release (deleting
 * it would let a waiter lock a file that is no longer the one others open).
 *
 * <p>Between processes the lock is {@link FileChannel#tryLock()}, which is an {@code fcntl} lock on Linux and macOS
 * (NFSv4 carries such locks in its protocol). Within one JVM a file can be locked only once
 * ({@link OverlappingFileLockException}), and closing any channel of a file releases every lock the process holds on
 * it, so threads of this JVM first claim the lock file's real path in a process-wide set and only the claimant opens
 * a channel. A lock that stays busy is tried again every {@link #POLL} until the wait given to
 * {@link HubCache#lockBlob} has passed, then the wait fails with {@link ErrorCode#TIMEOUT} naming the lock file.
 */
public final class HubBlobLock implements AutoCloseable {
    /** The pause between two attempts at a busy lock. */
    public static final Duration POLL = Duration.ofMillis(100);

    /** The lock files this JVM holds, by real path. */
    private static final Set<Path> HELD_HERE = ConcurrentHashMap.newKeySet();

    private final Path file;
    private final Path key;
    private final FileChannel channel;
    private final FileLock lock;

    private HubBlobLock(Path file, Path key, FileChannel channel, FileLock lock) {
        this.file = file;
        this.key = key;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * @param file the lock file, created with its folders if missing
     * @param wait how long a busy lock is waited for
     * @param time the clock and the pause between attempts
     * @return the lock, held
     * @throws StorageException {@link ErrorCode#TIMEOUT} if the lock stayed busy for {@code wait},
     *                          {@link ErrorCode#INTERRUPTED} if the thread was interrupted while waiting,
     *                          {@link ErrorCode#NOT_A_FILE} if the lock file is a link, a folder or anything but a
     *                          regular file
     * @throws IOException      if the lock file cannot be created or locked
     */
    static HubBlobLock acquire(Path file, Duration wait, TimeSource time) throws IOException {
        Files.createDirectories(file.getParent());
        // the real folder: two spellings of one cache (a linked root) must claim the same key
        Path key = file.getParent().toRealPath().resolve(file.getFileName());
        long waitNanos = saturatedNanos(wait);
        long start = time.nanoTime();
        while (true) {
            HubBlobLock held = tryOnce(file, key);
            if (held != null) {
                return held;
            }
            long waited = time.nanoTime() - start;
            if (waited >= waitNanos) {
                throw new StorageException(ErrorCode.TIMEOUT, file.toString(), "another download holds this lock"
                        + " of the Hugging Face cache and did not release it within " + wait + "; run again once"
                        + " it has finished");
            }
            try {
                time.sleep(Duration.ofNanos(Math.min(POLL.toNanos(), waitNanos - waited)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StorageException(ErrorCode.INTERRUPTED, file.toString(), "interrupted while waiting for"
                        + " this lock of the Hugging Face cache", e);
            }
        }
    }

    /** One attempt: the lock held, or {@code null} when this JVM or another process holds it. */
    private static HubBlobLock tryOnce(Path file, Path key) throws IOException {
        if (!HELD_HERE.add(key)) {
            return null;
        }
        FileChannel channel = null;
        try {
            checkRegularOrAbsent(file);
            // READ and WRITE: an exclusive lock needs a writable channel, and a read-write open never blocks on a
            // FIFO put in the lock file's place after the check above
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                // this JVM holds the file under another key (it was replaced by another file since): busy
                lock = null;
            }
            if (lock == null) {
                release(channel, key);
                return null;
            }
            return new HubBlobLock(file, key, channel, lock);
        } catch (IOException e) {
            release(channel, key);
            if (e instanceof StorageException) {
                throw e;
            }
            checkRegularOrAbsent(file);
            throw new StorageException(ErrorCode.of(e), file.toString(), "cannot lock this file of the Hugging Face"
                    + " cache: " + e.getMessage(), e);
        }
    }

    /** A link, a folder or a FIFO where a lock file belongs was not made by any download: refused, never followed. */
    private static void checkRegularOrAbsent(Path file) throws StorageException {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return;
        } catch (IOException e) {
            throw new StorageException(ErrorCode.of(e), file.toString(), "cannot read this lock file of the Hugging"
                    + " Face cache: " + e.getMessage(), e);
        }
        if (!a.isRegularFile()) {
            throw new StorageException(ErrorCode.NOT_A_FILE, file.toString(), (a.isSymbolicLink() ? "is a symbolic"
                    + " link" : "is not a regular file") + " where the Hugging Face cache keeps a lock file; remove it");
        }
    }

    private static void release(FileChannel channel, Path key) {
        try {
            if (channel != null) {
                channel.close();
            }
        } catch (IOException ignored) {
            // closing an empty lock file loses nothing; the key below still frees the lock for this JVM
        } finally {
            HELD_HERE.remove(key);
        }
    }

    private static long saturatedNanos(Duration d) {
        try {
            return Math.max(0, d.toNanos());
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /** @return the lock file */
    public Path file() {
        return file;
    }

    /**
     * Releases the lock; the lock file stays.
     *
     * @throws IOException if the lock cannot be released (the channel is closed all the same, which releases it)
     */
    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            release(channel, key);
        }
    }

    @Override
    public String toString() {
        return "HubBlobLock[" + file + "]";
    }
}
