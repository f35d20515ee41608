package dev.safetensors.spi;

import dev.safetensors.ErrorCode;
import dev.safetensors.ListOptions;
import dev.safetensors.Location;
import dev.safetensors.StorageException;

import java.io.IOException;

/**
 * The {@link PagedListing} of an object-store prefix ({@code SCHEME://BUCKET[/PREFIX]}): what every bucket backend
 * (S3, Cloud Storage, Azure Blob) shares, so that a backend writes only its request and the mapping of its answer.
 * It holds the {@link BucketPrefix} listed, bounds the page size asked by the storage's own largest page, and checks
 * each key the storage names ({@link #listed}).
 */
public abstract class BucketListing extends PagedListing {
    private final BucketPrefix at;
    private final int pageSize;

    /**
     * @param where           {@code SCHEME://BUCKET[/PREFIX]}, parsed with {@link BucketPrefix#parse}; the prefix
     *                        names the listing in messages
     * @param options         recursion, page size and bounds
     * @param storagePageSize the most entries the storage returns in one page, {@code >= 1}
     * @param policy          the retries of every page: the policy of the provider that lists
     * @throws IOException an {@link dev.safetensors.InvalidLocationException} ({@link ErrorCode#INVALID_SOURCE}) if
     *                     the location names no bucket
     */
    protected BucketListing(Location where, ListOptions options, int storagePageSize, RemotePolicy policy)
            throws IOException {
        this(BucketPrefix.parse(where), options, storagePageSize, policy);
    }

    private BucketListing(BucketPrefix at, ListOptions options, int storagePageSize, RemotePolicy policy) {
        super(at.toString(), options, Math.min(options.pageSize(), storagePageSize), policy);
        this.at = at;
        this.pageSize = Math.min(options.pageSize(), storagePageSize);
    }

    /** @return the bucket and prefix listed */
    protected final BucketPrefix at() {
        return at;
    }

    /** @return the page size to ask for: {@link ListOptions#pageSize()}, at most the storage's largest page */
    protected final int pageSize() {
        return pageSize;
    }

    /**
     * Whether this storage lists keys in UTF-8 binary order, so that each key is checked to come after the one
     * before ({@link #inOrder}). S3 general purpose buckets, Cloud Storage and Azure Blob do; a backend whose
     * storage does not (S3 directory buckets) says so here.
     *
     * @return {@code true} unless overridden
     */
    protected boolean listsInOrder() {
        return true;
    }

    /**
     * Checks a key the storage listed: under the prefix asked and, where the storage lists in order, after the key
     * before it, so that a key listed twice (a cycle of continuation tokens of any length) ends the listing.
     *
     * @param key  the key as listed
     * @param what what it is, for the message: {@code "the key"}, {@code "the object"}
     * @return {@code false} for the prefix's own folder placeholder (which consoles create), to be skipped;
     *         {@code true} for a key under the prefix
     * @throws StorageException {@link ErrorCode#INVALID_LISTING} if the key lies outside the prefix asked or comes
     *                          out of order
     */
    protected final boolean listed(String key, String what) throws StorageException {
        if (key != null && key.equals(at.prefix())) {
            return false;
        }
        if (!at.holds(key)) {
            throw invalid("the listing names " + what + " '" + SourceNames.clip(String.valueOf(key))
                    + "', outside the prefix asked");
        }
        if (listsInOrder()) {
            inOrder(key);
        }
        return true;
    }

    /**
     * Checks a common prefix (a folder of a one-level listing) the storage listed: under the prefix asked and, where
     * the storage lists in order, not before the prefix listed before it.
     *
     * @param prefix the common prefix as listed
     * @return {@code false} for a repeat of the prefix listed just before (the top of a new page), to be skipped
     * @throws StorageException {@link ErrorCode#INVALID_LISTING} if it lies outside the prefix asked or comes out of
     *                          order
     */
    protected final boolean listedPrefix(String prefix) throws StorageException {
        if (!at.holds(prefix)) {
            throw invalid("the listing names the prefix '" + SourceNames.clip(String.valueOf(prefix))
                    + "', outside the prefix asked");
        }
        return !listsInOrder() || inOrderPrefix(prefix);
    }
}
