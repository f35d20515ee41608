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
 * backend's page bound, no continuation token seen among the last {@value #REMEMBERED_TOKENS}, no more pages,
 * entries or empty pages in a row than {@link ListOptions} allows, and no more time spent on requests than
 * {@link ListOptions#maxTime()} (measured with the policy's {@link TimeSource}). A storage that lists in order
 * (S3, Cloud Storage and Azure Blob list in UTF-8 binary order) also has each key checked to come after the one
 * before ({@link #inOrder}, {@link #inOrderPrefix}): a key listed twice, whatever the length of the cycle of tokens
 * that brought it back, is refused in constant memory. A failed check is a {@link StorageException} with
 * {@link ErrorCode#INVALID_LISTING}; an interrupted thread ends with {@link ErrorCode#INTERRUPTED}; {@link #close()}
 * from any thread ends the listing before its next request (after at most one backoff step when it is waiting to
 * retry).
 *
 * <p><b>Retries.</b> Each page is one {@link RetriedRequest} under the {@link RemotePolicy} of the provider that
 * lists, as every other request is: an attempt says what its answer means by what it returns, a page or a retryable
 * status ({@link #answered(int, String, Throwable)}), and a thrown failure is judged by the policy's one no-answer
 * rule (a failure coded {@link ErrorCode#NETWORK} or {@link ErrorCode#TIMEOUT}, a body cut short, a plain
 * {@link IOException} is asked again; every other failure is final at once). A page is asked again with the same
 * continuation token, up to {@link RemotePolicy#maxAttempts()} attempts in all for that page, with the policy's
 * backoff (or a {@code Retry-After} up to its cap) between attempts. Only the final failure reaches the caller; each
 * retry is logged at {@code DEBUG}. {@link #cost()} counts one request per page and one exchange per attempt. An
 * error status means what {@link StatusMapping} says, as for every request.
 *
 * <p>A backend implements {@link #fetch(String)}: one attempt of one request for one page, without a retry of its
 * own, its entries already checked to lie under the prefix asked.
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
    private final RemotePolicy policy;
    private final RequestCounter counter = new RequestCounter();
    private final ArrayDeque<String> recentTokens = new ArrayDeque<>();
    private Iterator<ListEntry> current = List.<ListEntry>of().iterator();
    private String token;
    private boolean started;
    private boolean last;
    private long pages;
    private long entries;
    private int emptyPages;
    /** The nanoseconds spent on requests so far (retries and their waits included). */
    private long spentNanos;
    private String lastKey;
    private String lastPrefix;
    private volatile boolean closed;
    /** The attempt of the current page under way, from 1. */
    private int attempt;

    /**
     * @param name           the prefix as shown in messages (redacted)
     * @param options        recursion, page size and bounds
     * @param maxPageEntries the most entries one page may hold: the page size asked, or the storage's fixed page
     *                       size when it ignores the one asked
     * @param policy         the retries of every page: the policy of the provider that lists
     */
    protected PagedListing(String name, ListOptions options, int maxPageEntries, RemotePolicy policy) {
        this.name = Objects.requireNonNull(name, "name");
        this.options = Objects.requireNonNull(options, "options");
        this.policy = Objects.requireNonNull(policy, "policy");
        if (maxPageEntries < 1) {
            throw new IllegalArgumentException("maxPageEntries must be positive");
        }
        this.maxPageEntries = maxPageEntries;
    }

    /**
     * Fetches one page: one attempt of one request, counted with {@code counter().exchange()}. Called again with
     * the same token when the attempt returns a retryable status or fails in a way the class comment says is
     * retried.
     *
     * @param token {@code null} for the first page, else the token the previous page gave
     * @return the page ({@link RetriedRequest.Outcome#answer}), or what an error status means
     *         ({@link #answered(int, String, Throwable)})
     * @throws IOException a coded failure of the request (a final error status through {@link #answered}, no answer
     *                     as {@link ErrorCode#NETWORK} or {@link ErrorCode#TIMEOUT}), or
     *                     {@link ErrorCode#INVALID_LISTING} for an answer that cannot be read or names an entry
     *                     outside the prefix
     */
    protected abstract RetriedRequest.Outcome<Page> fetch(String token) throws IOException;

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

    /** @return the retries this listing follows */
    protected final RemotePolicy policy() {
        return policy;
    }

    /**
     * What an error status answered to a page request means: a retryable status ({@link RemotePolicy#isRetryable})
     * is returned as such, to be asked again, and any other is thrown as {@link StatusMapping} maps it.
     *
     * @param status     an HTTP status that is not a success
     * @param retryAfter the answer's {@code Retry-After} value, or {@code null}
     * @param cause      the client's failure behind it, or {@code null}
     * @return a retryable outcome, whose failure is a {@link StorageException} with {@link ErrorCode#SERVER_ERROR}
     * @throws IOException the final failure of any other status: {@link ErrorCode#NOT_FOUND} (a missing bucket or
     *                     repository), {@link ErrorCode#ACCESS_DENIED} (the listing permission is missing), and the
     *                     rest as {@link StatusMapping} says
     */
    protected final RetriedRequest.Outcome<Page> answered(int status, String retryAfter, Throwable cause)
            throws IOException {
        String said = "the listing request was answered " + status + toldBy(cause);
        IOException failure = StatusMapping.failure(status, name, switch (StatusMapping.code(status)) {
            case NOT_FOUND -> said + ": no such bucket or repository";
            case ACCESS_DENIED -> said + ": listing is not allowed; check the credentials and the listing permission"
                    + " (s3:ListBucket, storage.objects.list, Azure List Blobs)";
            case SERVER_ERROR -> said + " after " + attempt + " attempt" + (attempt == 1 ? "" : "s");
            default -> said;
        }, cause);
        if (RemotePolicy.isRetryable(status)) {
            return RetriedRequest.Outcome.retryable(status, retryAfter, failure);
        }
        throw failure;
    }

    /**
     * What the store said in an error answer beyond its status, added after the status in the listing's failure
     * message: its own error code and the host that answered, as {@code " (ContainerNotFound from HOST:PORT)"}.
     * Empty by default; a backend whose client tells more overrides it. Never a credential.
     *
     * @param cause the client's failure behind the answer, or {@code null}
     * @return the words to add after the status, starting with a space, or empty
     */
    protected String toldBy(Throwable cause) {
        return "";
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
        counter.request();
        TimeSource time = policy.time();
        long began = time.nanoTime();
        Page page;
        try {
            page = fetchWithRetries(began);
        } finally {
            spentNanos += Math.max(0, time.nanoTime() - began);
        }
        if (page == null) {
            return; // closed while waiting to retry
        }
        started = true;
        pages++;
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
        emptyPages = got.isEmpty() ? emptyPages + 1 : 0;
        if (next != null && emptyPages >= options.maxEmptyPages()) {
            // an endless run of fresh tokens over nothing: each page costs a request and shows nothing
            throw invalid(emptyPages + " pages in a row held no entry and the listing still did not end (the bound)");
        }
        if (next != null) {
            checkTime();
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

    /**
     * The attempts of one page, with the same token, as the class comment says: each one a check of the bounds and
     * of {@link #close()}, then one {@link #fetch}.
     *
     * @return the page, or {@code null} if the listing was closed while waiting to retry
     */
    private Page fetchWithRetries(long began) throws IOException {
        return RetriedRequest.call(policy, name, "the listing request", made -> {
            attempt = made;
            if (made > 1) {
                if (closed) {
                    return RetriedRequest.Outcome.answer(null);
                }
                if (Thread.currentThread().isInterrupted()) {
                    throw new StorageException(ErrorCode.INTERRUPTED, name, "the listing was interrupted");
                }
                if (spentNanos + (policy.time().nanoTime() - began) > options.maxTime().toNanos()) {
                    throw invalid("the listing did not end within " + options.maxTime() + " of requests (the bound)");
                }
            }
            return fetch(token);
        });
    }

    private void checkTime() throws StorageException {
        if (spentNanos > options.maxTime().toNanos()) {
            throw invalid("the listing did not end within " + options.maxTime() + " of requests (the bound)");
        }
    }

    /**
     * Checks that a key comes strictly after the key listed before it, for a backend whose storage lists keys in
     * UTF-8 binary order: a key listed twice, or a page that goes back (a cycle of continuation tokens of any
     * length), is refused. Keys are compared by code point, which is UTF-8 binary order.
     *
     * @param key an object key as listed (not a common prefix: see {@link #inOrderPrefix})
     * @throws StorageException {@link ErrorCode#INVALID_LISTING} if it does not come after the previous key
     */
    protected final void inOrder(String key) throws StorageException {
        if (lastKey != null && compareCodePoints(key, lastKey) <= 0) {
            throw invalid("the listing names '" + SourceNames.clip(key) + "' after '" + SourceNames.clip(lastKey)
                    + "': a storage that lists in order names each key once, in order");
        }
        lastKey = key;
    }

    /**
     * Checks that a common prefix (a folder of a one-level listing) does not come before the one listed before it.
     * The same prefix may come again at the top of the next page (Cloud Storage leaves out duplicate prefixes only
     * within a page), so a repeat of the last one is to be skipped, not refused.
     *
     * @param prefix a common prefix as listed
     * @return {@code true} for a new prefix, {@code false} for a repeat of the last one, to be skipped
     * @throws StorageException {@link ErrorCode#INVALID_LISTING} if it comes before the previous prefix
     */
    protected final boolean inOrderPrefix(String prefix) throws StorageException {
        if (lastPrefix != null) {
            int order = compareCodePoints(prefix, lastPrefix);
            if (order == 0) {
                return false;
            }
            if (order < 0) {
                throw invalid("the listing names the prefix '" + SourceNames.clip(prefix) + "' after '"
                        + SourceNames.clip(lastPrefix) + "': a storage that lists in order names prefixes in order");
            }
        }
        lastPrefix = prefix;
        return true;
    }

    /** UTF-8 binary order, which is code point order (not {@link String#compareTo}'s UTF-16 order). */
    static int compareCodePoints(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Boolean.compare(i < a.length(), j < b.length());
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
