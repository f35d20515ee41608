package dev.safetensors.spi;

import dev.safetensors.ErrorCode;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.SourceStatistics;
import dev.safetensors.StorageException;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * The one {@link Listing} every paging backend extends: it fetches one page at a time, only when the previous one is
 * consumed (memory holds one page), and checks every page before handing out its entries: no more entries than the
 * backend's page bound, no continuation token seen among the last {@value #REMEMBERED_TOKENS}, no more pages or
 * entries than {@link ListOptions} allows. A failed check is a {@link StorageException} with
 * {@link ErrorCode#INVALID_LISTING}; an interrupted thread ends with {@link ErrorCode#INTERRUPTED}; {@link #close()}
 * from any thread ends the listing before its next request.
 *
 * <p>A backend implements {@link #fetch(String)}: one request for one page, its entries already checked to lie under
 * the prefix asked.
 */
public abstract class PagedListing implements Listing {
    /** How many recent continuation tokens are remembered to detect a listing that goes round in circles. */
    public static final int REMEMBERED_TOKENS = 64;

    /** One page as a storage answered it. */
    public static final class Page {
        private final List<ListEntry> entries;
        private final String nextToken;

        /**
         * @param entries   the entries of the page, in the storage's order
         * @param nextToken the token that asks for the next page, or {@code null} (or empty) after the last
         */
        public Page(List<ListEntry> entries, String nextToken) {
            this.entries = Objects.requireNonNull(entries, "entries");
            this.nextToken = nextToken == null || nextToken.isEmpty() ? null : nextToken;
        }

        /** @return the entries */
        public List<ListEntry> entries() {
            return entries;
        }

        /** @return the next page's token, or {@code null} after the last page */
        public String nextToken() {
            return nextToken;
        }
    }

    private final String name;
    private final ListOptions options;
    private final int maxPageEntries;
    private final RequestCounter counter = new RequestCounter();
    private final ArrayDeque<String> recentTokens = new ArrayDeque<>();
    private Iterator<ListEntry> current = List.<ListEntry>of().iterator();
    private String token;
    private boolean started;
    private boolean last;
    private long pages;
    private long entries;
    private volatile boolean closed;

    /**
     * @param name           the prefix as shown in messages (redacted)
     * @param options        recursion, page size and bounds
     * @param maxPageEntries the most entries one page may hold: the page size asked, or the storage's fixed page
     *                       size when it ignores the one asked
     */
    protected PagedListing(String name, ListOptions options, int maxPageEntries) {
        this.name = Objects.requireNonNull(name, "name");
        this.options = Objects.requireNonNull(options, "options");
        if (maxPageEntries < 1) {
            throw new IllegalArgumentException("maxPageEntries must be positive");
        }
        this.maxPageEntries = maxPageEntries;
    }

    /**
     * Fetches one page: one request.
     *
     * @param token {@code null} for the first page, else the token the previous page gave
     * @return the page
     * @throws IOException a coded failure of the request, or {@link ErrorCode#INVALID_LISTING} for an answer that
     *                     cannot be read or names an entry outside the prefix
     */
    protected abstract Page fetch(String token) throws IOException;

    /** @return the options this listing was asked with */
    protected final ListOptions options() {
        return options;
    }

    /** @return the counter of this listing's requests, exchanges and bytes, for the backend to add to */
    protected final RequestCounter counter() {
        return counter;
    }

    /** @return the prefix as shown in messages */
    protected final String name() {
        return name;
    }

    /**
     * @param detail what is wrong with the answer
     * @return an {@link ErrorCode#INVALID_LISTING} failure naming this listing
     */
    protected final StorageException invalid(String detail) {
        return new StorageException(ErrorCode.INVALID_LISTING, name, detail);
    }

    /**
     * @param status an HTTP status that is not a success
     * @return the failure it means for a listing: {@link ErrorCode#NOT_FOUND} (404, 410, a missing bucket),
     *         {@link ErrorCode#ACCESS_DENIED} (401, 403: the listing permission is missing),
     *         {@link ErrorCode#SERVER_ERROR} (5xx, 429), {@link ErrorCode#INVALID_LISTING} otherwise
     */
    protected final IOException statusFailure(int status) {
        String said = "the listing request was answered " + status;
        if (status == 404 || status == 410) {
            return new dev.safetensors.SourceNotFoundException(name, said + ": no such bucket or repository");
        }
        if (status == 401 || status == 403) {
            return new dev.safetensors.SourceAccessDeniedException(name, said + ": listing is not allowed; check"
                    + " the credentials and the listing permission (s3:ListBucket, storage.objects.list, Azure List Blobs)");
        }
        if (status >= 500 || status == 429) {
            return new StorageException(ErrorCode.SERVER_ERROR, name, said);
        }
        return invalid(said);
    }

    @Override
    public final boolean hasNext() throws IOException {
        while (!closed) {
            if (current.hasNext()) {
                return true;
            }
            if (started && last) {
                return false;
            }
            nextPage();
        }
        return false;
    }

    @Override
    public final ListEntry next() throws IOException {
        if (!hasNext()) {
            throw new NoSuchElementException("the listing of " + name + " has ended");
        }
        return current.next();
    }

    private void nextPage() throws IOException {
        if (Thread.currentThread().isInterrupted()) {
            throw new StorageException(ErrorCode.INTERRUPTED, name, "the listing was interrupted");
        }
        if (pages >= options.maxPages()) {
            throw invalid("the listing did not end after " + pages + " pages (the bound)");
        }
        Page page = fetch(token);
        started = true;
        pages++;
        counter.request();
        List<ListEntry> got = page.entries();
        if (got.size() > maxPageEntries) {
            throw invalid("page " + pages + " holds " + got.size() + " entries, more than the " + maxPageEntries
                    + " a page may hold");
        }
        entries += got.size();
        if (entries > options.maxEntries()) {
            throw invalid("the listing holds more than " + options.maxEntries() + " entries (the bound)");
        }
        String next = page.nextToken();
        if (next != null) {
            if (next.equals(token) || recentTokens.contains(next)) {
                throw invalid("page " + pages + " repeats an earlier continuation token: the listing would not end");
            }
            recentTokens.addLast(next);
            if (recentTokens.size() > REMEMBERED_TOKENS) {
                recentTokens.removeFirst();
            }
        }
        token = next;
        last = next == null;
        current = got.iterator();
    }

    /** @return how many pages were fetched so far */
    public final long pages() {
        return pages;
    }

    @Override
    public SourceStatistics cost() {
        return counter.snapshot();
    }

    /** Ends the listing; later calls to {@link #hasNext()} return {@code false} without a request. */
    @Override
    public void close() {
        closed = true;
    }
}
