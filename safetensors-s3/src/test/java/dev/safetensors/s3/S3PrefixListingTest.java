package dev.safetensors.s3;

import dev.safetensors.ErrorCode;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.StorageException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code ListObjectsV2} paging against a loopback server: request counts, and the checks on every page. */
class S3PrefixListingTest {
    private static Listing list(PagingS3Server server, ListOptions options) throws IOException {
        return new S3SourceProvider(server.client).list(Location.parse("s3://bucket/p/"), options);
    }

    @Test
    void aPrefixOfNObjectsCostsCeilNOverPageSizeRequests() throws Exception {
        try (PagingS3Server server = new PagingS3Server(2_501, PagingS3Server.Behaviour.WELL);
             Listing listing = list(server, ListOptions.DEFAULT.withRecursive(true))) {
            long n = 0;
            ListEntry last = null;
            while (listing.hasNext()) {
                last = listing.next();
                n++;
            }
            assertEquals(2_501, n);
            assertEquals(3, server.requests.get(), "ceil(2501 / 1000) pages");
            assertEquals(3, listing.cost().requests());
            assertEquals("s3://bucket/p/k0002500.safetensors", last.location().text());
            assertEquals("\"e2500\"", last.version().orElseThrow());
            assertTrue(last.isFile());
            assertFalse(listing.hasNext(), "no request after the last page");
            assertEquals(3, server.requests.get());
        }
    }

    @Test
    void aRepeatedContinuationTokenIsAnInvalidListingNotAHang() throws Exception {
        try (PagingS3Server server = new PagingS3Server(10, PagingS3Server.Behaviour.REPEAT_TOKEN);
             Listing listing = list(server, ListOptions.DEFAULT.withPageSize(5))) {
            StorageException e = assertThrows(StorageException.class, () -> {
                while (listing.hasNext()) {
                    listing.next();
                }
            });
            assertEquals(ErrorCode.INVALID_LISTING, e.code());
            assertEquals(2, server.requests.get(), "found on the second page");
        }
    }

    @Test
    void aPageLargerThanAskedIsAnInvalidListing() throws Exception {
        try (PagingS3Server server = new PagingS3Server(100, PagingS3Server.Behaviour.OVERSIZED_PAGE);
             Listing listing = list(server, ListOptions.DEFAULT.withPageSize(10))) {
            StorageException e = assertThrows(StorageException.class, listing::hasNext);
            assertEquals(ErrorCode.INVALID_LISTING, e.code());
        }
    }

    @Test
    void aKeyOutsideThePrefixIsAnInvalidListing() throws Exception {
        try (PagingS3Server server = new PagingS3Server(3, PagingS3Server.Behaviour.KEY_OUTSIDE_PREFIX);
             Listing listing = list(server, ListOptions.DEFAULT)) {
            StorageException e = assertThrows(StorageException.class, listing::hasNext);
            assertEquals(ErrorCode.INVALID_LISTING, e.code());
        }
    }

    @Test
    void aPageBoundEndsAnEndlessListing() throws Exception {
        try (PagingS3Server server = new PagingS3Server(1_000, PagingS3Server.Behaviour.WELL);
             Listing listing = list(server, ListOptions.DEFAULT.withPageSize(10).withBounds(1_000_000, 5))) {
            StorageException e = assertThrows(StorageException.class, () -> {
                while (listing.hasNext()) {
                    listing.next();
                }
            });
            assertEquals(ErrorCode.INVALID_LISTING, e.code());
            assertEquals(5, server.requests.get());
        }
    }

    @Test
    void closingCancelsBeforeTheNextRequest() throws Exception {
        try (PagingS3Server server = new PagingS3Server(100, PagingS3Server.Behaviour.WELL)) {
            Listing listing = list(server, ListOptions.DEFAULT.withPageSize(10));
            assertTrue(listing.hasNext());
            listing.close();
            assertFalse(listing.hasNext());
            assertEquals(1, server.requests.get());
        }
    }

    @Test
    void anInterruptedThreadEndsTheListingWithItsCode() throws Exception {
        try (PagingS3Server server = new PagingS3Server(100, PagingS3Server.Behaviour.WELL);
             Listing listing = list(server, ListOptions.DEFAULT)) {
            Thread.currentThread().interrupt();
            try {
                StorageException e = assertThrows(StorageException.class, listing::hasNext);
                assertEquals(ErrorCode.INTERRUPTED, e.code());
            } finally {
                Thread.interrupted();
            }
            assertEquals(0, server.requests.get());
        }
    }

    /**
     * A million generated entries through the real SDK, page by page: the heap retained after a full collection
     * grows by less than 16 MiB between the first page and the last (a list of them would hold hundreds of MiB).
     */
    @Test
    @Tag("slow")
    void aMillionEntriesAreListedInFlatMemory() throws Exception {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        try (PagingS3Server server = new PagingS3Server(1_000_000, PagingS3Server.Behaviour.WELL);
             Listing listing = list(server, ListOptions.DEFAULT.withRecursive(true))) {
            long n = 0;
            long sizes = 0;
            long baseline = -1;
            long peak = 0;
            while (listing.hasNext()) {
                ListEntry e = listing.next();
                sizes += e.size();
                if (++n % 100_000 == 1) {
                    System.gc();
                    long used = memory.getHeapMemoryUsage().getUsed();
                    if (baseline < 0) {
                        baseline = used;
                    }
                    peak = Math.max(peak, used);
                }
            }
            assertEquals(1_000_000, n);
            assertEquals(1_000, server.requests.get());
            assertTrue(sizes > 0);
            long growth = peak - baseline;
            System.out.printf("LISTING 1,000,000 entries, 1,000 pages: retained heap grew %,d bytes%n", growth);
            assertTrue(growth < 16L << 20, "retained heap grew by " + growth + " bytes");
        }
    }
}
