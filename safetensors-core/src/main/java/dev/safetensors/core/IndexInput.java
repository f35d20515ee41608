package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import dev.safetensors.core.internal.header.Utf8Validator;

/**
 * The bytes of an index as the streaming parser reads them: refused past {@code limit} bytes, and checked as strict
 * UTF-8 ({@link Utf8Validator}) chunk by chunk, a sequence cut by a chunk boundary being carried to the next chunk.
 * So the index never needs to be held whole, and the JSON parser only ever sees valid UTF-8.
 *
 * <p>Failures are {@link InvalidHeaderException}s with {@link ErrorCode#INVALID_INDEX}. Not thread-safe.
 */
final class IndexInput extends FilterInputStream {
    private final String source;
    private final long limit;
    private long count;
    /** The start of a multi-byte sequence the previous chunk ended inside, at most 3 bytes. */
    private byte[] carry = new byte[0];

    IndexInput(String source, InputStream in, long limit) {
        super(in);
        this.source = source;
        this.limit = limit;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        int n = in.read(b, off, len);
        if (n < 0) {
            if (carry.length > 0) {
                throw ShardIndex.invalid(source, "the index is not valid UTF-8 (truncated sequence at the end)",
                        count - carry.length);
            }
            return -1;
        }
        if (count + n > limit) {
            throw ShardIndex.invalid(source, "the index has more than " + limit + " bytes, the limit", -1);
        }
        check(b, off, n);
        count += n;
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        // skipping would bypass the checks; the parser never skips
        return 0;
    }

    private void check(byte[] b, int off, int n) throws InvalidHeaderException {
        byte[] chunk;
        int from;
        if (carry.length == 0) {
            chunk = b;
            from = off;
        } else {
            chunk = new byte[carry.length + n];
            System.arraycopy(carry, 0, chunk, 0, carry.length);
            System.arraycopy(b, off, chunk, carry.length, n);
            from = 0;
        }
        int end = from + (chunk == b ? n : chunk.length);
        int cut = boundary(chunk, from, end);
        Utf8Validator.Result r = Utf8Validator.validate(chunk, from, cut - from);
        if (!r.valid()) {
            throw ShardIndex.invalid(source, "the index is not valid UTF-8", count - carry.length + r.errorAt());
        }
        carry = Arrays.copyOfRange(chunk, cut, end);
    }

    /** @return where the last complete sequence ends: before a lead byte whose sequence runs past {@code end} */
    private static int boundary(byte[] b, int from, int end) {
        for (int i = end - 1; i >= Math.max(from, end - 3); i--) {
            int c = b[i] & 0xff;
            if ((c & 0xC0) != 0x80) {
                int need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
                return i + need > end ? i : end;
            }
        }
        return end;
    }
}
