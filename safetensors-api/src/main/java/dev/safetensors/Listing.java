package dev.safetensors;

import java.io.Closeable;
import java.io.IOException;
import java.util.NoSuchElementException;

/**
 * The entries under a folder or prefix, fetched lazily page by page, so memory stays flat however many there are.
 * Not thread-safe for iteration, but {@link #close()} may be called from any thread to cancel: the next
 * {@link #hasNext()} then ends the listing without another request.
 *
 * <p>Failures are checked and coded: a storage failure as for reads, a malformed or endless listing as
 * {@link ErrorCode#INVALID_LISTING}, an interrupted thread as {@link ErrorCode#INTERRUPTED}.
 */
public interface Listing extends Closeable {

    /**
     * @return whether another entry follows; may fetch the next page
     * @throws IOException if the page cannot be fetched or is malformed
     */
    boolean hasNext() throws IOException;

    /**
     * @return the next entry
     * @throws IOException if the page cannot be fetched or is malformed
     * @throws NoSuchElementException if there is none ({@link #hasNext()} said so)
     */
    ListEntry next() throws IOException;

    /** @return the requests (pages) and bytes spent so far */
    SourceStatistics cost();

    /** Cancels the listing and releases what it holds; idempotent, callable from any thread. */
    @Override
    void close();
}
