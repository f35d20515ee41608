package dev.safetensors;

/**
 * What reading a source has cost so far: the number of read requests (one per {@link RandomAccessSource#read},
 * one per {@link RandomAccessSource#openRange} on a remote source, metadata requests included) and the number
 * of bytes fetched. Immutable.
 *
 * @param requests  the number of requests made
 * @param bytesRead the number of object bytes received
 */
public record SourceStatistics(long requests, long bytesRead) {
    /** No requests, no bytes. */
    public static final SourceStatistics NONE = new SourceStatistics(0, 0);
}
