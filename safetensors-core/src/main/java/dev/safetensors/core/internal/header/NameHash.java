package dev.safetensors.core.internal.header;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The hash by which {@link NameTable} finds a name: of its UTF-8 bytes, read eight at a time. Two names are equal
 * exactly when their UTF-8 bytes are, so a name without escapes is hashed where it lies in the header, with no string.
 * {@code String.hashCode()} would cost one multiply-add in a chain per character, a sixth of all validation time
 * for names of 40 to 60 bytes.
 */
public final class NameHash {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long K = 0x9E3779B97F4A7C15L;

    private NameHash() {
    }

    /** @return the hash of the bytes {@code [from, to)} of {@code b} */
    static int of(byte[] b, int from, int to) {
        long h = to - from;
        int i = from;
        for (; i + 8 <= to; i += 8) {
            h = (h ^ (long) LONGS.get(b, i)) * K;
        }
        if (i < to) {
            long tail;
            int n = to - i;
            if (i + 8 <= b.length) {
                tail = (long) LONGS.get(b, i) & (-1L >>> (64 - 8 * n));
            } else {
                tail = 0;
                for (int k = n - 1; k >= 0; k--) {
                    tail = tail << 8 | (b[i + k] & 0xff);
                }
            }
            h = (h ^ tail) * K;
        }
        return (int) (h ^ (h >>> 29) ^ (h >>> 43));
    }
}
