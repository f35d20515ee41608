package dev.safetensors.azure;

import com.azure.core.http.HttpPipelineCallContext;
import com.azure.core.http.policy.HttpPipelineSyncPolicy;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import dev.safetensors.ErrorCode;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.azure.testing.Azurite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Listing prefixes of a real Azurite with List Blobs, counted at the client's pipeline: ceil(N / page size) list
 * requests, then one ranged GET per file whose header fits the first read.
 */
class AzuriteListingTest {
    private static final int FILES = 25;
    private static final int PAGE = 10;

    private static Azurite azurite;
    private static final AtomicInteger listRequests = new AtomicInteger();
    private static final AtomicInteger getRequests = new AtomicInteger();
    private static AzureSourceProvider provider;

    @BeforeAll
    static void start() throws Exception {
        azurite = Azurite.shared();
        BlobServiceClient counted = new BlobServiceClientBuilder().connectionString(azurite.connectionString())
                .addPolicy(new HttpPipelineSyncPolicy() {
                    @Override
                    protected void beforeSendingRequest(HttpPipelineCallContext context) {
                        String query = context.getHttpRequest().getUrl().getQuery();
                        if (query != null && query.contains("comp=list")) {
                            listRequests.incrementAndGet();
                        } else {
                            getRequests.incrementAndGet();
                        }
                    }
                }).buildClient();
        byte[] file = AzuriteReadsTest.tinySafetensors();
        for (int i = 0; i < FILES; i++) {
            // nested prefixes: a/ holds 10, a/b/ holds 10, the top holds 5
            String folder = i < 10 ? "run/a/" : i < 20 ? "run/a/b/" : "run/";
            azurite.put("listing", folder + String.format("m%02d.safetensors", i), file);
        }
        azurite.put("listing", "other/outside.safetensors", file);
        provider = new AzureSourceProvider(counted);
    }

    @AfterAll
    static void stop() {
        if (provider != null) {
            provider.close();
        }
    }

    @BeforeEach
    void resetCounts() {
        listRequests.set(0);
        getRequests.set(0);
    }

    private static List<ListEntry> all(Listing listing) throws Exception {
        List<ListEntry> entries = new ArrayList<>();
        while (listing.hasNext()) {
            entries.add(listing.next());
        }
        return entries;
    }

    @Test
    void aPrefixOfNBlobsCostsCeilNOverPageSizeListsThenOneGetPerFile() throws Exception {
        List<ListEntry> entries;
        try (Listing listing = provider.list(Location.parse("az://listing/run/"),
                ListOptions.DEFAULT.withRecursive(true).withPageSize(PAGE))) {
            entries = all(listing);
            assertEquals(3, listing.cost().requests(), "ceil(25 / 10) pages");
        }
        assertEquals(FILES, entries.size());
        assertEquals(3, listRequests.get(), "ceil(25 / 10) List Blobs requests");
        assertEquals(0, getRequests.get());
        for (ListEntry e : entries) {
            assertTrue(e.isFile());
            assertTrue(e.location().text().startsWith("az://listing/run/"), e.location().text());
            assertEquals(AzuriteReadsTest.tinySafetensors().length, e.size());
            assertTrue(e.version().isPresent() && e.lastModified().isPresent());
            try (RandomAccessSource source = provider.open(Location.of(e.location().uri().orElseThrow()))) {
                assertEquals(e.size(), source.read(0, ByteBuffer.allocate(128 * 1024)));
            }
        }
        assertEquals(FILES, getRequests.get(), "one ranged GET per file whose header fits the first read");
        assertEquals(3, listRequests.get());
    }

    @Test
    void oneLevelGivesTheBlobsAndTheFoldersBelowThePrefix() throws Exception {
        try (Listing listing = provider.list(Location.parse("az://listing/run/a/"), ListOptions.DEFAULT)) {
            List<ListEntry> entries = all(listing);
            assertEquals(11, entries.size(), entries.toString());
            List<String> folders = entries.stream().filter(e -> e.kind() == ListEntry.Kind.FOLDER)
                    .map(e -> e.location().text()).toList();
            assertEquals(List.of("az://listing/run/a/b/"), folders);
            assertEquals(10, entries.stream().filter(ListEntry::isFile).count());
        }
        assertEquals(1, listRequests.get());
    }

    @Test
    void anAbfssPrefixListsAsAbfssLocationsThatOpen() throws Exception {
        String base = "abfss://listing@" + Azurite.ACCOUNT + ".dfs.core.windows.net";
        try (Listing listing = provider.list(Location.parse(base + "/run/a/b"), ListOptions.DEFAULT)) {
            List<ListEntry> entries = all(listing);
            assertEquals(10, entries.size());
            ListEntry first = entries.get(0);
            assertEquals(base + "/run/a/b/m10.safetensors", first.location().text());
            try (RandomAccessSource source = provider.open(Location.of(first.location().uri().orElseThrow()))) {
                assertEquals(first.size(), source.read(0, ByteBuffer.allocate(128 * 1024)));
            }
        }
    }

    @Test
    void theWholeContainerListsWhenThePathIsEmpty() throws Exception {
        try (Listing listing = provider.list(Location.parse("az://listing/"),
                ListOptions.DEFAULT.withRecursive(true))) {
            assertEquals(FILES + 1, all(listing).size());
        }
    }

    @Test
    void aMissingContainerIsNotFound() throws Exception {
        try (Listing listing = provider.list(Location.parse("az://absent/run/"), ListOptions.DEFAULT)) {
            SourceNotFoundException e = assertThrows(SourceNotFoundException.class, listing::hasNext);
            assertEquals(ErrorCode.NOT_FOUND, e.code());
        }
    }

    @Test
    void openingAPrefixStaysRefusedAndAPinnedPrefixIsNotListed() {
        InvalidLocationException opened = assertThrows(InvalidLocationException.class,
                () -> provider.open(Location.parse("az://listing/run/")));
        assertEquals(ErrorCode.INVALID_SOURCE, opened.code());
        InvalidLocationException pinned = assertThrows(InvalidLocationException.class,
                () -> provider.list(Location.parse("az://listing/run/?versionid=2024-01-01T00:00:00.0000000Z"),
                        ListOptions.DEFAULT));
        assertEquals(ErrorCode.INVALID_SOURCE, pinned.code());
        assertEquals(0, listRequests.get() + getRequests.get());
        assertFalse(provider.supports(Location.parse("s3://models/run/")));
    }
}
