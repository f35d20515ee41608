package dev.safetensors.spi;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * A parsed {@code Content-Range: bytes FIRST-LAST/TOTAL} response header (RFC 9110 section 14.4), with all three
 * numbers known. Parsing is strict: digits only, no signs, no spaces inside numbers, {@code FIRST <= LAST < TOTAL},
 * and nothing above 2^63-1; an unsatisfied-range form ({@code bytes *&#47;TOTAL}) or an unknown total
 * ({@code /*}) does not parse.
 *
 * @param first the first byte position
 * @param last  the last byte position, inclusive
 * @param total the size of the whole object
 */
public record ContentRange(long first, long last, long total) {

    /**
     * @param value the header value, or {@code null}
     * @return the parsed range, or empty when absent or malformed
     */
    public static Optional<ContentRange> parse(String value) {
        if (value == null) {
            return Optional.empty();
        }
        String v = value.trim();
        if (!v.regionMatches(true, 0, "bytes ", 0, 6)) {
            return Optional.empty();
        }
        int dash = v.indexOf('-', 6);
        int slash = v.indexOf('/', 6);
        if (dash < 0 || slash < dash) {
            return Optional.empty();
        }
        long first = digits(v, 6, dash);
        long last = digits(v, dash + 1, slash);
        long total = digits(v, slash + 1, v.length());
        if (first < 0 || last < 0 || total < 0 || first > last || last >= total) {
            return Optional.empty();
        }
        return Optional.of(new ContentRange(first, last, total));
    }

    /**
     * Reads the object size from the form a 416 answer carries, {@code bytes *}{@code /TOTAL}.
     *
     * @param value the {@code Content-Range} header value, or {@code null}
     * @return the total, or empty when absent or malformed
     */
    public static OptionalLong unsatisfiedTotal(String value) {
        if (value == null) {
            return OptionalLong.empty();
        }
        String v = value.trim();
        if (!v.regionMatches(true, 0, "bytes */", 0, 8)) {
            return OptionalLong.empty();
        }
        long total = digits(v, 8, v.length());
        return total < 0 ? OptionalLong.empty() : OptionalLong.of(total);
    }

    /** @return the number of bytes the range covers */
    public long length() {
        return last - first + 1;
    }

    private static long digits(String s, int from, int to) {
        if (from >= to || to - from > 19) {
            return -1;
        }
        long v = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
            if (v < 0) {
                return -1;
            }
        }
        return v;
    }

    @Override
    public String toString() {
        return "bytes " + first + "-" + last + "/" + total;
    }
}
