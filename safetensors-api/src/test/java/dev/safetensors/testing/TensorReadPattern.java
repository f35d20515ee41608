package dev.safetensors.testing;

import dev.safetensors.RandomAccessSource;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.util.Arrays;
import java.util.Random;

/**
 * The read pattern of the library's tensor reads, for backend tests that may not depend on the core module: one
 * {@code read} of a 128 KiB prefix (the header), then for each tensor one {@link RandomAccessSource#openRange} read
 * in 64 KiB blocks to its exact length, never asking for the end, then closed (as core's {@code RangeStreamer}
 * does).
 */
public final class TensorReadPattern {
    /** The prefix the header read asks for first. */
    public static final int PREFIX = 128 * 1024;

    private TensorReadPattern() {
    }

    /**
     * @param tensors how many tensors
     * @param bytes   bytes per tensor
     * @return an object of an 8-byte prefix area followed by {@code tensors} ranges of {@code bytes} each, random
     */
    public static byte[] object(int tensors, int bytes) {
        byte[] b = new byte[PREFIX + tensors * bytes];
        new Random(tensors * 31L + bytes).nextBytes(b);
        return b;
    }

    /**
     * Reads the prefix and then every tensor range the way the library does, checking every byte.
     *
     * @param source  the source over {@link #object}
     * @param content the object's bytes
     * @param tensors how many tensors
     * @param bytes   bytes per tensor
     * @throws IOException if a read fails or returns other bytes
     */
    public static void readEveryTensor(RandomAccessSource source, byte[] content, int tensors, int bytes)
            throws IOException {
        ByteBuffer prefix = ByteBuffer.allocate(PREFIX);
        source.readFully(0, prefix);
        ByteBuffer block = ByteBuffer.allocate(64 * 1024);
        for (int t = 0; t < tensors; t++) {
            long at = PREFIX + (long) t * bytes;
            byte[] got = new byte[bytes];
            int done = 0;
            try (ReadableByteChannel in = source.openRange(at, bytes)) {
                while (done < bytes) {
                    block.clear().limit(Math.min(block.capacity(), bytes - done));
                    while (block.hasRemaining()) {
                        if (in.read(block) < 0) {
                            throw new EOFException("tensor " + t + " ended early");
                        }
                    }
                    block.flip();
                    int n = block.remaining();
                    block.get(got, done, n);
                    done += n;
                }
            }
            if (!Arrays.equals(got, Arrays.copyOfRange(content, (int) at, (int) at + bytes))) {
                throw new IOException("tensor " + t + " has other bytes than stored");
            }
        }
    }
}
