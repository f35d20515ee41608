package dev.safetensors;

/**
 * How to list a folder or a prefix: one level or the whole tree, the page size asked of the storage, and the bounds
 * that make a malformed or endless listing a coded failure ({@link ErrorCode#INVALID_LISTING}) instead of a hang.
 * Immutable.
 *
 * @param recursive  whether to descend into subfolders (for object stores: no delimiter); one level otherwise, where
 *                   subfolders and common prefixes are reported as {@link ListEntry.Kind#FOLDER} entries
 * @param pageSize   how many entries to ask the storage for per page, from 1 to {@value #MAX_PAGE_SIZE}; storages
 *                   with a smaller maximum use theirs
 * @param maxEntries the most entries a listing may yield before it fails
 * @param maxPages   the most pages a listing may fetch before it fails
 */
public record ListOptions(boolean recursive, int pageSize, long maxEntries, long maxPages) {
    /** Default page size: S3's and GCS's maximum, so a prefix of N objects costs ceil(N / 1000) requests. */
    public static final int DEFAULT_PAGE_SIZE = 1000;
    /** The largest page size accepted. */
    public static final int MAX_PAGE_SIZE = 10_000;
    /** Default bound on the entries of one listing: far above any real bucket prefix a check walks. */
    public static final long DEFAULT_MAX_ENTRIES = 100_000_000L;
    /** Default bound on the pages of one listing. */
    public static final long DEFAULT_MAX_PAGES = 1_000_000L;

    /** One level, default page size and bounds. */
    public static final ListOptions DEFAULT = new ListOptions(false, DEFAULT_PAGE_SIZE, DEFAULT_MAX_ENTRIES,
            DEFAULT_MAX_PAGES);

    /**
     * Checks the bounds.
     *
     * @param recursive whether to descend
     * @param pageSize entries per page asked
     * @param maxEntries the most entries
     * @param maxPages the most pages
     * @throws IllegalArgumentException if a value is out of range
     */
    public ListOptions {
        if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
            throw new IllegalArgumentException("pageSize must be from 1 to " + MAX_PAGE_SIZE + ", was " + pageSize);
        }
        if (maxEntries < 1 || maxPages < 1) {
            throw new IllegalArgumentException("maxEntries and maxPages must be positive");
        }
    }

    /**
     * @param recursive whether to descend into subfolders
     * @return these options with that choice
     */
    public ListOptions withRecursive(boolean recursive) {
        return new ListOptions(recursive, pageSize, maxEntries, maxPages);
    }

    /**
     * @param pageSize entries per page asked, from 1 to {@value #MAX_PAGE_SIZE}
     * @return these options with that page size
     */
    public ListOptions withPageSize(int pageSize) {
        return new ListOptions(recursive, pageSize, maxEntries, maxPages);
    }

    /**
     * @param maxEntries the most entries a listing may yield
     * @param maxPages   the most pages it may fetch
     * @return these options with those bounds
     */
    public ListOptions withBounds(long maxEntries, long maxPages) {
        return new ListOptions(recursive, pageSize, maxEntries, maxPages);
    }
}
