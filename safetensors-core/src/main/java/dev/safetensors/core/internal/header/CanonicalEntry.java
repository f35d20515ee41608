package dev.safetensors.core.internal.header;

import dev.safetensors.DType;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The fast path for the one tensor entry shape that writers produce,
 * {@code {"dtype":"BF16","shape":[1408,2048],"data_offsets":[0,5767168]}}: fields in this order, no whitespace, no
 * escapes, a dtype the format defines, integers of at most 18 digits without leading zeros. Such an entry is read in
 * one pass over its bytes, with no tokens and no strings.
 *
 * <p>It never judges: on the first byte that is not of that shape it gives up, and the caller reads the entry again
 * from its start with the general tokenizer. Everything it accepts the general path accepts with the same values
 * (at depth 3, which every policy allows), so the verdicts, codes and offsets are the general path's. Not
 * thread-safe; one instance per header.
 */
public final class CanonicalEntry {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final Literal DTYPE_FIELD = new Literal("{\"dtype\":\"");
    private static final Literal SHAPE_FIELD = new Literal("\",\"shape\":[");
    private static final Literal OFFSETS_FIELD = new Literal(",\"data_offsets\":[");
    private static final DType[] DTYPES = DtypeNames.DTYPES;
    private static final byte[][] DTYPE_NAMES = DtypeNames.ASCII;
    /** Each dtype name of at most 8 bytes read as a little-endian long, for a comparison in one step; else 0. */
    private static final long[] DTYPE_WORDS = Arrays.stream(DTYPE_NAMES)
            .mapToLong(n -> n.length > 8 ? 0 : word(n, 0, n.length)).toArray();
    /** The longest dtype name the format defines, plus its closing quote. */
    private static final int DTYPE_SCAN = Arrays.stream(DTYPE_NAMES).mapToInt(n -> n.length).max().orElseThrow() + 1;
    private static final long ZEROS = 0x3030303030303030L;
    private static final long LOW_BITS = 0x7F7F7F7F7F7F7F7FL;
    private static final long HIGH_BITS = 0x8080808080808080L;
    /** Longer integers may be above 2^63-1, which is the general path's to report. */
    private static final int MAX_DIGITS = 18;
    private static final long[] POWERS = {1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000};
    /** Higher ranks are rare enough for the general path. */
    private static final int MAX_FAST_RANK = 32;

    private final byte[] b;
    private final int limit;
    private final int maxStringBytes;
    private final long[] dims;

    private DType dtype;
    private int rank;
    private long begin;
    private long end;
    /** Where the integer just read ends; a field rather than a second return value. */
    private int afterNumber;

    /**
     * @param bytes          the header bytes
     * @param limit          the index after the last header byte
     * @param maxRank        the policy's largest rank: a longer shape is the general path's to report
     * @param maxStringBytes the policy's longest string: a longer dtype name is the general path's to report
     */
    CanonicalEntry(byte[] bytes, int limit, int maxRank, int maxStringBytes) {
        this.b = bytes;
        this.limit = limit;
        this.maxStringBytes = maxStringBytes;
        this.dims = new long[Math.min(maxRank, MAX_FAST_RANK)];
    }

    /**
     * @param start the index of the entry's {@code '{'}
     * @return the index after the entry's {@code '}'}, or -1 when the entry is not of the canonical shape
     */
    int read(int start) {
        int i = match(start, DTYPE_FIELD);
        if (i < 0 || (dtype = dtype(i)) == null) {
            return -1;
        }
        i = match(i + dtype.name().length(), SHAPE_FIELD);
        if (i < 0 || (i = shape(i)) < 0 || (i = match(i, OFFSETS_FIELD)) < 0) {
            return -1;
        }
        begin = integer(i);
        if (begin < 0 || !at(afterNumber, ',')) {
            return -1;
        }
        end = integer(afterNumber + 1);
        i = afterNumber;
        if (end < 0 || !at(i, ']') || !at(i + 1, '}')) {
            return -1;
        }
        return i + 2;
    }

    /** @return the offset of the dtype string's opening quote, relative to {@code start} */
    static int dtypeQuote() {
        return DTYPE_FIELD.length() - 1;
    }

    DType dtype() {
        return dtype;
    }

    int rank() {
        return rank;
    }

    /** @return the shape's dimensions in {@code [0, rank())}; overwritten by the next entry */
    long[] dims() {
        return dims;
    }

    long begin() {
        return begin;
    }

    long end() {
        return end;
    }

    /** @return the index after the array's {@code ']'}, or -1 */
    private int shape(int i) {
        rank = 0;
        if (at(i, ']')) {
            return i + 1;
        }
        while (true) {
            if (rank == dims.length) {
                return -1;
            }
            long d = integer(i);
            if (d < 0) {
                return -1;
            }
            dims[rank++] = d;
            i = afterNumber;
            if (at(i, ']')) {
                return i + 1;
            }
            if (!at(i, ',')) {
                return -1;
            }
            i++;
        }
    }

    /**
     * @return the plain integer at {@code i}, its end in {@link #afterNumber}; -1 when it is not a short one. Eight
     *         digits at a time where the header has eight more bytes: offsets have ten digits or more.
     */
    private long integer(int i) {
        if (i + 16 > limit) {
            return digitByDigit(0, i, 0);
        }
        long w = (long) LONGS.get(b, i);
        int n = digitCount(w);
        if (n == 0 || (n > 1 && b[i] == '0')) {
            return -1;
        }
        if (n < 8) {
            afterNumber = i + n;
            return eightDigits((w - ZEROS) << (64 - 8 * n));
        }
        long high = eightDigits(w - ZEROS);
        w = (long) LONGS.get(b, i + 8);
        n = digitCount(w);
        if (n == 8) {
            return digitByDigit(high, i + 8, 8);
        }
        afterNumber = i + 8 + n;
        return n == 0 ? high : high * POWERS[n] + eightDigits((w - ZEROS) << (64 - 8 * n));
    }

    /**
     * The rest of an integer one byte at a time: near the end of the header, or past 16 digits.
     *
     * @param v     the value of the {@code count} digits before {@code i}
     * @param count how many digits that is
     */
    private long digitByDigit(long v, int i, int count) {
        int j = i;
        int d;
        while (j < limit && count < MAX_DIGITS && (d = b[j] - '0') >= 0 && d <= 9) {
            if (count == 1 && v == 0) {
                return -1;
            }
            v = v * 10 + d;
            j++;
            count++;
        }
        if (count == 0 || (j < limit && b[j] >= '0' && b[j] <= '9')) {
            return -1;
        }
        afterNumber = j;
        return v;
    }

    /** @return how many of the eight bytes of {@code w}, from the lowest, are ASCII digits before the first other */
    private static int digitCount(long w) {
        long x = w & LOW_BITS;
        // the high bit of each byte that is not a digit: at or above 0x80, below '0' (0x30 + 0x50 does not reach
        // 0x80), or above '9' (0x3A + 0x46 does); seven-bit sums never carry into the next byte
        long notDigit = (w | ~(x + 0x5050505050505050L) | (x + 0x4646464646464646L)) & HIGH_BITS;
        return Long.numberOfTrailingZeros(notDigit) >>> 3;
    }

    /**
     * @param v eight digit values 0 to 9, one per byte, the most significant in the lowest byte (leading zero bytes
     *          stand for leading zeros)
     * @return their value: pairs, then fours, then the eight, each step one multiplication
     */
    private static long eightDigits(long v) {
        v = v * 10 + (v >>> 8);
        return ((v & 0x000000FF000000FFL) * (100 + (1_000_000L << 32))
                + ((v >>> 16) & 0x000000FF000000FFL) * (1 + (10_000L << 32))) >>> 32;
    }

    /** @return the dtype whose name, closed by a quote, is at {@code i}, or {@code null} */
    private DType dtype(int i) {
        int quote = i;
        int stop = Math.min(limit, i + DTYPE_SCAN);
        while (quote < stop && b[quote] != '"') {
            quote++;
        }
        int n = quote - i;
        if (quote == stop || n == 0 || n > maxStringBytes) {
            return null;
        }
        if (n <= 8 && i + 8 <= limit) {
            long w = (long) LONGS.get(b, i) & (-1L >>> (64 - 8 * n));
            for (int t = 0; t < DTYPES.length; t++) {
                if (DTYPE_WORDS[t] == w && DTYPE_NAMES[t].length == n) {
                    return DTYPES[t];
                }
            }
            return null;
        }
        for (int t = 0; t < DTYPES.length; t++) {
            byte[] name = DTYPE_NAMES[t];
            if (Arrays.equals(b, i, quote, name, 0, name.length)) {
                return DTYPES[t];
            }
        }
        return null;
    }

    /** @return the index after {@code expected} if the bytes at {@code i} are exactly it, else -1 */
    private int match(int i, Literal expected) {
        int n = expected.length();
        if (i + n > limit) {
            return -1;
        }
        long[] words = expected.words();
        for (int k = 0; k < words.length; k++) {
            // the last word ends where the literal does, overlapping the one before it
            int at = k == words.length - 1 ? i + n - 8 : i + 8 * k;
            if ((long) LONGS.get(b, at) != words[k]) {
                return -1;
            }
        }
        return i + n;
    }

    /** @return bytes {@code [from, to)}, at most eight, as a little-endian long */
    private static long word(byte[] bytes, int from, int to) {
        long w = 0;
        for (int k = to - 1; k >= from; k--) {
            w = w << 8 | (bytes[k] & 0xff);
        }
        return w;
    }

    /** An ASCII text of at least eight bytes, held as the longs it is compared by. */
    private record Literal(int length, long[] words) {
        Literal(String text) {
            this(text.length(), words(ascii(text)));
        }

        private static long[] words(byte[] bytes) {
            int n = bytes.length;
            long[] words = new long[(n + 7) / 8];
            for (int k = 0; k < words.length - 1; k++) {
                words[k] = word(bytes, 8 * k, 8 * k + 8);
            }
            words[words.length - 1] = word(bytes, n - 8, n);
            return words;
        }
    }

    private boolean at(int i, char c) {
        return i < limit && b[i] == c;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
