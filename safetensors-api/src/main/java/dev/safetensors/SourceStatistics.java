package dev.safetensors;

/**
 * What reading a source has cost so far. Immutable.
 *
 * <p>{@code requests} counts what the caller asked of the source: one per {@link RandomAccessSource#read}, one per
 * {@link RandomAccessSource#openRange}, and one per metadata lookup (a remote {@link RandomAccessSource#size}
 * before any read). {@code exchanges} counts what that took on the wire: every HTTP request sent, so each redirect
 * hop and each retried attempt adds one; a Hub file read is typically two (the Hub's redirect, then the CDN's 206).
 * Local files make no exchanges.
 *
 * @param requests  the number of requests made of the source
 * @param bytesRead the number of object bytes received
 * @param exchanges the number of HTTP requests sent for them, redirects and retries included; 0 for local files
 */
public record SourceStatistics(long requests, long bytesRead, long exchanges) {
    /** No requests, no bytes, no exchanges. */
    public static final SourceStatistics NONE = new SourceStatistics(0, 0, 0);

    /**
     * @param other another cost
     * @return the sum of both, field by field
     */
    public SourceStatistics plus(SourceStatistics other) {
        return new SourceStatistics(requests + other.requests, bytesRead + other.bytesRead,
                exchanges + other.exchanges);
    }
}
