package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Read-only memory mappings of a local file, shared by every view of it. The file is covered by windows of
 * {@link #WINDOW} bytes that start every {@link #STEP} bytes, so any range of at most {@code STEP} bytes lies wholly
 * inside one window: a file of many tensors costs a few mappings, made on first use and kept. A longer range (up to
 * {@link Integer#MAX_VALUE} bytes, the most a {@link ByteBuffer} addresses) gets a mapping of its own.
 *
 * <p>Mappings are never released explicitly (the JDK 17 API cannot do it safely): each lives until the last buffer
 * over it is garbage collected. A view therefore stays readable after the file is closed and can never touch
 * unmapped memory. Thread-safe.
 */
final class MappedWindows {
    /** A quarter of the 2 GiB a buffer addresses: few mappings per file, and little address space per mapping. */
    static final long WINDOW = 1L << 29;
    static final long STEP = WINDOW / 2;

    private final FileSource file;
    private final long size;
    private final AtomicReferenceArray<ByteBuffer> windows;

    MappedWindows(FileSource file) throws IOException {
        this.file = file;
        this.size = file.size();
        this.windows = new AtomicReferenceArray<>((int) Math.max(1, (size + STEP - 1) / STEP));
    }

    /**
     * @throws StorageException {@link ErrorCode#TRUNCATED} if the file is now shorter than when it was opened: reading
     *                          a mapping past the end would make the JVM raise {@link InternalError}
     */
    void checkNotTruncated() throws IOException {
        long now = file.currentSize();
        if (now < size) {
            throw new StorageException(ErrorCode.TRUNCATED, file.name(), "the file shrank from " + size + " to "
                    + now + " bytes since it was opened");
        }
    }

    /**
     * @param position the file offset of the first byte
     * @param length   at most {@link Integer#MAX_VALUE} bytes, within the file
     * @return a read-only, little-endian buffer of exactly those bytes, positioned at 0
     * @throws IOException if mapping fails, the file is closed or the thread is interrupted
     */
    ByteBuffer view(long position, int length) throws IOException {
        if (length == 0) {
            return ByteBuffer.allocate(0).asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
        }
        if (length > STEP) {
            return file.map(position, length).order(ByteOrder.LITTLE_ENDIAN);
        }
        int k = (int) (position / STEP);
        ByteBuffer w = windows.get(k);
        if (w == null) {
            long from = k * STEP;
            ByteBuffer mapped = file.map(from, Math.min(WINDOW, size - from));
            w = windows.compareAndSet(k, null, mapped) ? mapped : windows.get(k);
        }
        return w.slice((int) (position - k * STEP), length).order(ByteOrder.LITTLE_ENDIAN);
    }
}
