package dev.safetensors.core.internal.header;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Strict UTF-8 validation (rule 7): no overlong forms, no encoded surrogates, nothing above U+10FFFF, no truncated
 * sequences. ASCII, which is nearly all of any real header, is checked eight bytes at a time.
 */
public final class Utf8Validator {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long HIGH_BITS = 0x8080808080808080L;
    private static final long LOW_BITS = 0x7F7F7F7F7F7F7F7FL;
    private static final long QUOTES = 0x2222222222222222L;

    /**
     * Where validation failed, or {@link #VALID}; the number of {@code '"'} bytes before that point, from which a
     * header's entry count can be estimated before parsing (a tensor entry has ten).
     */
    public record Result(int errorAt, int quotes) {
        static final int VALID = -1;

        public boolean valid() {
            return errorAt == VALID;
        }
    }

    private Utf8Validator() {
    }

    /**
     * @param b   the bytes
     * @param off first byte to check
     * @param len number of bytes to check
     * @return the offset (relative to {@code off}) of the first byte of the first invalid sequence, or valid
     */
    public static Result validate(byte[] b, int off, int len) {
        int i = off;
        int end = off + len;
        int quotes = 0;
        while (i < end) {
            if (i + 8 <= end) {
                long v = (long) LONGS.get(b, i);
                if ((v & HIGH_BITS) == 0) {
                    // the high bit of exactly the bytes equal to '"': adding 0x7F to seven bits never carries into the next byte
                    long x = v ^ QUOTES;
                    quotes += Long.bitCount(~((x & LOW_BITS) + LOW_BITS | x | LOW_BITS));
                    i += 8;
                    continue;
                }
            }
            int c = b[i] & 0xff;
            if (c < 0x80) {
                if (c == '"') {
                    quotes++;
                }
                i++;
                continue;
            }
            int n = sequenceLength(b, i, end);
            if (n < 0) {
                return new Result(i - off, quotes);
            }
            i += n;
        }
        return new Result(Result.VALID, quotes);
    }

    /** @return the length of the valid multi-byte sequence at {@code i}, or -1 */
    private static int sequenceLength(byte[] b, int i, int end) {
        int c = b[i] & 0xff;
        if (c >= 0xC2 && c <= 0xDF) {
            return continuation(b, i + 1, end) ? 2 : -1;
        }
        if (c >= 0xE0 && c <= 0xEF) {
            if (i + 2 >= end) {
                return -1;
            }
            int c1 = b[i + 1] & 0xff;
            int lo = c == 0xE0 ? 0xA0 : 0x80;   // E0 80..9F would be overlong
            int hi = c == 0xED ? 0x9F : 0xBF;   // ED A0..BF would encode a surrogate
            return c1 >= lo && c1 <= hi && continuation(b, i + 2, end) ? 3 : -1;
        }
        if (c >= 0xF0 && c <= 0xF4) {
            if (i + 3 >= end) {
                return -1;
            }
            int c1 = b[i + 1] & 0xff;
            int lo = c == 0xF0 ? 0x90 : 0x80;   // F0 80..8F would be overlong
            int hi = c == 0xF4 ? 0x8F : 0xBF;   // F4 90.. would be above U+10FFFF
            return c1 >= lo && c1 <= hi && continuation(b, i + 2, end) && continuation(b, i + 3, end) ? 4 : -1;
        }
        return -1;
    }

    private static boolean continuation(byte[] b, int i, int end) {
        return i < end && (b[i] & 0xC0) == 0x80;
    }
}
