package dev.safetensors.cli;

import dev.safetensors.RandomAccessSource;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.LongConsumer;

/**
 * The SHA-256 of a whole object, computed locally in one streamed pass: one {@code openRange} (one request for a
 * remote source), read in 1 MiB blocks.
 */
final class ContentDigest {
    private static final int BLOCK = 1 << 20;

    private ContentDigest() {
    }

    /**
     * @param source   the object
     * @param size     its size
     * @param progress told about every block read
     * @return the digest in lower-case hex
     * @throws IOException if the object cannot be read, or ends early
     */
    static String sha256(RandomAccessSource source, long size, LongConsumer progress) throws IOException {
        MessageDigest digest = newSha256();
        ByteBuffer block = ByteBuffer.allocate(BLOCK);
        long done = 0;
        try (ReadableByteChannel channel = source.openRange(0, size)) {
            for (int n; (n = channel.read(block)) >= 0; ) {
                digest.update(block.flip());
                block.clear();
                done += n;
                progress.accept(n);
            }
        }
        if (done != size) {
            throw new EOFException(source.name() + ": read " + done + " bytes of " + size);
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    /**
     * @param hex a digest as a user or a manifest wrote it
     * @return whether it is 64 hex digits
     */
    static boolean isSha256(String hex) {
        return hex != null && hex.length() == 64 && hex.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')
                || (c >= 'A' && c <= 'F'));
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime provides SHA-256", e);
        }
    }
}
