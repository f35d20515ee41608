package dev.safetensors.spi;

import dev.safetensors.RangeNotHonouredException;

/**
 * Checks that a response to {@code Range: bytes=a-b} is exactly the range asked for. Every remote backend calls
 * it on every ranged response before reading the body.
 */
public final class RangeVerifier {
    private RangeVerifier() {
    }

    /**
     * Verifies a ranged response.
     *
     * @param source       the source name, for the message
     * @param status       the HTTP status of the response
     * @param contentRange the {@code Content-Range} header value, or {@code null}
     * @param position     the first byte asked for
     * @param length       the number of bytes asked for, {@code >= 1}
     * @param knownSize    the object size seen on an earlier response, or -1 if none was seen yet
     * @return the parsed range, whose {@code total} is the object size and whose {@code length()} is the exact
     *         number of body bytes to expect
     * @throws RangeNotHonouredException if the status is not 206, the header is absent or malformed, or the start,
     *                                   end or total differ from what was asked or seen
     */
    public static ContentRange verify(String source, int status, String contentRange, long position, long length,
                                      long knownSize) throws RangeNotHonouredException {
        long askedLast = position + length - 1;
        String asked = "asked for bytes " + position + "-" + askedLast;
        if (status != 206) {
            throw new RangeNotHonouredException(source, asked + " but the server answered status " + status
                    + (status == 200 ? " with the whole object (range ignored)" : ""));
        }
        ContentRange range = ContentRange.parse(contentRange).orElseThrow(() -> new RangeNotHonouredException(
                source, asked + " but the Content-Range header is " + (contentRange == null ? "missing"
                        : "malformed: '" + SourceNames.clip(contentRange) + "'")));
        if (knownSize >= 0 && range.total() != knownSize) {
            throw new RangeNotHonouredException(source, asked + " but the object size changed from " + knownSize
                    + " to " + range.total() + " (" + range + ")");
        }
        long expectedLast = Math.min(askedLast, range.total() - 1);
        if (range.first() != position || range.last() != expectedLast) {
            throw new RangeNotHonouredException(source, asked + " but the server sent " + range);
        }
        return range;
    }
}
