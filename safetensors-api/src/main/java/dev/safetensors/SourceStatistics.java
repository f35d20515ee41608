package dev.safetensors;

import java.util.function.Supplier;

/**
 * What reading a source has cost so far. Immutable.
 *
 * <p>{@code requests} counts what the caller asked of the source: one per {@link RandomAccessSource#read}, one per
 * {@link RandomAccessSource#openRange}, and one per metadata lookup (a remote {@link RandomAccessSource#size}
 * before any read). {@code exchanges} counts what that took on the wire: every HTTP request sent, so each redirect
 * hop and each retried attempt adds one; a Hub file read is typically two (the Hub's redirect, then the CDN's 206).
 * Local files make no exchanges.
 *
 * <p>Counters only grow, so the cost of one operation is the difference of two snapshots:
 * <pre>{@code
 * SourceStatistics before = source.statistics();
 * file.readFloat32("embed.weight");
 * SourceStatistics cost = source.statistics().minus(before); // this read alone
 * }</pre>
 * or, for a block of work, {@link #since(Supplier) since(source::statistics)}.
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

    /**
     * @param earlier a snapshot of the same counters taken before this one
     * @return what was spent between the two, field by field ({@code this} minus {@code earlier}); a field is negative
     *         only if {@code earlier} was in fact taken later, or of other counters
     */
    public SourceStatistics minus(SourceStatistics earlier) {
        return new SourceStatistics(requests - earlier.requests, bytesRead - earlier.bytesRead,
                exchanges - earlier.exchanges);
    }

    /**
     * Starts measuring one operation: the returned supplier gives, each time it is asked, what was spent since this
     * call.
     *
     * <pre>{@code
     * Supplier<SourceStatistics> cost = SourceStatistics.since(checkpoint::statistics);
     * checkpoint.readFloat32("lm_head.weight");
     * System.out.println(cost.get().requests() + " requests");
     * }</pre>
     *
     * @param counters the counters to follow, such as {@code source::statistics} (read now and on each
     *                 {@code get()})
     * @return the cost since now, a fresh {@link #minus difference} on each call
     */
    public static Supplier<SourceStatistics> since(Supplier<SourceStatistics> counters) {
        SourceStatistics start = counters.get();
        return () -> counters.get().minus(start);
    }
}
