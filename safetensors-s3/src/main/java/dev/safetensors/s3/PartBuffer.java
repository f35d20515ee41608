package dev.safetensors.s3;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The bytes of one part being filled, at most a part's size. It grows as bytes come, from a small first array, so
 * that a small object costs what it holds and not a whole part. Not thread-safe: filled by the writing thread, then
 * handed to the upload of its part and no longer written.
 */
final class PartBuffer {
    /** The first array of a buffer whose part may turn out small. */
    private static final int FIRST_CAPACITY = 64 * 1024;

    private final int partSize;
    private byte[] bytes;
    private int length;

    /**
     * @param partSize     the most bytes it holds
     * @param expectedSize how many bytes are expected, or a negative value if unknown: the first array's size then
     */
    PartBuffer(int partSize, long expectedSize) {
        this.partSize = partSize;
        long first = expectedSize < 0 ? FIRST_CAPACITY : Math.max(expectedSize, 1);
        this.bytes = new byte[(int) Math.min(first, partSize)];
    }

    /**
     * Moves as many of {@code src}'s bytes as fit.
     *
     * @param src the bytes; its position advances past those taken
     * @return how many were taken
     */
    int fill(ByteBuffer src) {
        int n = Math.min(src.remaining(), partSize - length);
        if (length + n > bytes.length) {
            bytes = Arrays.copyOf(bytes, (int) Math.min(partSize, Math.max(length + (long) n, 2L * bytes.length)));
        }
        src.get(bytes, length, n);
        length += n;
        return n;
    }

    /** @return whether it holds a whole part */
    boolean isFull() {
        return length == partSize;
    }

    /** @return how many bytes it holds */
    int length() {
        return length;
    }

    /** @return the CRC32C value of the bytes it holds */
    int crc32c() {
        return S3Crc32c.of(bytes, 0, length);
    }

    /** @return a new stream over the bytes it holds, without copying them: one per attempt of the part's upload */
    InputStream stream() {
        return new ByteArrayInputStream(bytes, 0, length);
    }
}
