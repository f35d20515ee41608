package dev.safetensors.spi;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Location;
import dev.safetensors.StorageException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BucketListingTest {

    /** One page of the given keys, each checked through {@link #listed}. */
    private static final class OnePage extends BucketListing {
        private final List<String> keys;

        OnePage(String where, ListOptions options, List<String> keys) throws IOException {
            super(Location.parse(where), options, 500, RemotePolicy.DEFAULT);
            this.keys = keys;
        }

        @Override
        protected RetriedRequest.Outcome<Page> fetch(String token) throws IOException {
            List<ListEntry> entries = new ArrayList<>();
            for (String key : keys) {
                if (listed(key, "the key")) {
                    entries.add(ListEntry.special(at().locationOf(key), ListEntry.Kind.FOLDER));
                }
            }
            return RetriedRequest.Outcome.answer(new Page(entries, null));
        }
    }

    @Test
    void parsesTheLocationAndBoundsThePageByTheStore() throws IOException {
        OnePage listing = new OnePage("s3://bucket/models", ListOptions.DEFAULT, List.of());
        assertEquals(new BucketPrefix("s3", "bucket", "models/"), listing.at());
        assertEquals(500, listing.pageSize());
        assertEquals(20, new OnePage("s3://bucket/", ListOptions.DEFAULT.withPageSize(20), List.of()).pageSize());
    }

    @Test
    void skipsThePrefixOwnPlaceholderAndKeepsKeysUnderIt() throws IOException {
        OnePage listing = new OnePage("gs://bucket/models/", ListOptions.DEFAULT,
                List.of("models/", "models/a.safetensors"));
        assertTrue(listing.hasNext());
        assertEquals("gs://bucket/models/a.safetensors", listing.next().location().display());
        assertFalse(listing.hasNext());
    }

    @Test
    void aKeyOutsideThePrefixIsAnInvalidListing() throws IOException {
        OnePage listing = new OnePage("s3://bucket/models", ListOptions.DEFAULT, List.of("models-old/a"));
        StorageException e = assertThrows(StorageException.class, listing::hasNext);
        assertEquals(ErrorCode.INVALID_LISTING, e.code());
    }

    @Test
    void aLocationWithoutBucketIsRejected() {
        InvalidLocationException e = assertThrows(InvalidLocationException.class,
                () -> new OnePage("s3:///models", ListOptions.DEFAULT, List.of()));
        assertEquals(ErrorCode.INVALID_SOURCE, e.code());
    }
}
