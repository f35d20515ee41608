package dev.safetensors;

import java.time.Duration;
import java.util.Objects;

/**
 * How to list a folder or a prefix: one level or the whole tree, the page size asked of the storage, and the bounds
 * that make a malformed, endless or hostile listing a coded failure ({@link ErrorCode#INVALID_LISTING}) instead of a
 * hang or a full heap: every listing is bounded in entries, pages, consecutive empty pages and the time its requests
 * take, and a selection bounds what it holds back in memory. Immutable.
 *
 * @param recursive     whether to descend into subfolders (for object stores: no delimiter); one level otherwise,
 *                      where subfolders and common prefixes are reported as {@link ListEntry.Kind#FOLDER} entries
 * @param pageSize      how many entries to ask the storage for per page, from 1 to {@value #MAX_PAGE_SIZE}; storages
 *                      with a smaller maximum use theirs
 * @param maxEntries    the most entries a listing may yield before it fails
 * @param maxPages      the most pages a listing may fetch before it fails
 * @param maxEmptyPages the most pages in a row that may hold no entry while asking for another page
 * @param maxTime       the most time a listing may spend on its requests (retries and their waits included; the
 *                      time its caller spends on the entries does not count), measured with the listing's clock
 * @param maxHeldBack   the most entries a selection holds back, per folder or prefix listed, waiting for something
 *                      listed later (shard-named files waiting for their index); past it the oldest is let go
 */
public record ListOptions(boolean recursive, int pageSize, long maxEntries, long maxPages, int maxEmptyPages,
                          Duration maxTime, int maxHeldBack) {
    /** Default page size: S3's and GCS's maximum, so a prefix of N objects costs ceil(N / 1000) requests. */
    public static final int DEFAULT_PAGE_SIZE = 1000;
    /** The largest page size accepted. */
    public static final int MAX_PAGE_SIZE = 10_000;
    /** Default bound on the entries of one listing: far above any real bucket prefix a check walks. */
    public static final long DEFAULT_MAX_ENTRIES = 100_000_000L;
    /** Default bound on the pages of one listing. */
    public static final long DEFAULT_MAX_PAGES = 1_000_000L;
    /**
     * Default bound on consecutive empty pages: stores do answer an empty page with a token now and then (over a
     * stretch of deleted objects), but not a thousand in a row.
     */
    public static final int DEFAULT_MAX_EMPTY_PAGES = 1000;
    /**
     * Default bound on the time a listing's requests take: six hours, room for the {@value #DEFAULT_MAX_ENTRIES}
     * entries of the entry bound at a page of 1,000 every 200 ms.
     */
    public static final Duration DEFAULT_MAX_TIME = Duration.ofHours(6);
    /**
     * Default bound on what a selection holds back: the most shards one index may name, so that the shards of any
     * checkpoint wait for their index whole.
     */
    public static final int DEFAULT_MAX_HELD_BACK = 10_000;

    /** One level, default page size and bounds. */
    public static final ListOptions DEFAULT = new ListOptions(false, DEFAULT_PAGE_SIZE, DEFAULT_MAX_ENTRIES,
            DEFAULT_MAX_PAGES);

    /**
     * Checks the bounds.
     *
     * @param recursive     whether to descend
     * @param pageSize      entries per page asked
     * @param maxEntries    the most entries
     * @param maxPages      the most pages
     * @param maxEmptyPages the most empty pages in a row
     * @param maxTime       the most time spent on requests
     * @param maxHeldBack   the most entries held back
     * @throws IllegalArgumentException if a value is out of range
     */
    public ListOptions {
        if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
            throw new IllegalArgumentException("pageSize must be from 1 to " + MAX_PAGE_SIZE + ", was " + pageSize);
        }
        if (maxEntries < 1 || maxPages < 1 || maxEmptyPages < 1 || maxHeldBack < 0) {
            throw new IllegalArgumentException("maxEntries, maxPages and maxEmptyPages must be positive, maxHeldBack"
                    + " not negative");
        }
        Objects.requireNonNull(maxTime, "maxTime");
        if (maxTime.isNegative() || maxTime.isZero()) {
            throw new IllegalArgumentException("maxTime must be positive, was " + maxTime);
        }
    }

    /**
     * Options with the default empty-page, time and held-back bounds.
     *
     * @param recursive  whether to descend
     * @param pageSize   entries per page asked
     * @param maxEntries the most entries
     * @param maxPages   the most pages
     * @throws IllegalArgumentException if a value is out of range
     */
    public ListOptions(boolean recursive, int pageSize, long maxEntries, long maxPages) {
        this(recursive, pageSize, maxEntries, maxPages, DEFAULT_MAX_EMPTY_PAGES, DEFAULT_MAX_TIME,
                DEFAULT_MAX_HELD_BACK);
    }

    /**
     * @param recursive whether to descend into subfolders
     * @return these options with that choice
     */
    public ListOptions withRecursive(boolean recursive) {
        return new ListOptions(recursive, pageSize, maxEntries, maxPages, maxEmptyPages, maxTime, maxHeldBack);
    }

    /**
     * @param pageSize entries per page asked, from 1 to {@value #MAX_PAGE_SIZE}
     * @return these options with that page size
     */
    public ListOptions withPageSize(int pageSize) {
        return new ListOptions(recursive, pageSize, maxEntries, maxPages, maxEmptyPages, maxTime, maxHeldBack);
    }

    /**
     * @param maxEntries the most entries a listing may yield
     * @param maxPages   the most pages it may fetch
     * @return these options with those bounds
     */
    public ListOptions withBounds(long maxEntries, long maxPages) {
        return new ListOptions(recursive, pageSize, maxEntries, maxPages, maxEmptyPages, maxTime, maxHeldBack);
    }

    /**
     * @param maxEmptyPages the most pages in a row that may hold no entry
     * @param maxTime       the most time the listing's requests may take
     * @return these options with those bounds
     */
    public ListOptions withEndlessBounds(int maxEmptyPages, Duration maxTime) {
        return new ListOptions(recursive, pageSize, maxEntries, maxPages, maxEmptyPages, maxTime, maxHeldBack);
    }

    /**
     * @param maxHeldBack the most entries a selection holds back per folder or prefix
     * @return these options with that bound
     */
    public ListOptions withMaxHeldBack(int maxHeldBack) {
        return new ListOptions(recursive, pageSize, maxEntries, maxPages, maxEmptyPages, maxTime, maxHeldBack);
    }
}
