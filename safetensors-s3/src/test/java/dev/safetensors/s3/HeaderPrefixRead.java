package dev.safetensors.s3;

import dev.safetensors.RandomAccessSource;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The request pattern of the core header reader, without its validation (this module must not depend on core):
 * one read of the 128 KiB prefix at offset 0, then, only if the header is longer, one read of exactly the missing
 * bytes.
 */
final class HeaderPrefixRead {
    static final int PREFETCH_BYTES = 128 * 1024;

    private HeaderPrefixRead() {
    }

    /** @return the header JSON bytes of the file behind {@code source} */
    static byte[] header(RandomAccessSource source) throws IOException {
        ByteBuffer prefix = ByteBuffer.allocate(PREFETCH_BYTES);
        int got = source.read(0, prefix);
        if (got < 8) {
            throw new EOFException(source.name() + ": shorter than the 8-byte length prefix");
        }
        long headerBytes = ByteBuffer.wrap(prefix.array(), 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        ByteBuffer whole = ByteBuffer.allocate(Math.toIntExact(8 + headerBytes));
        whole.put(prefix.array(), 0, (int) Math.min(got, whole.capacity()));
        if (whole.hasRemaining()) {
            source.readFully(got, whole);
        }
        return Arrays.copyOfRange(whole.array(), 8, whole.capacity());
    }
}
