package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.ListEntry;
import dev.safetensors.fixtures.FixedListing;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.SourceAccessDeniedException;
import dev.safetensors.StorageException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the scan's listing does with the entries a listing could not read or name (the walk's own report, so it
 * holds for root too, whom no folder refuses): it fails with their code, or skips and counts them when allowed.
 */
class FileListingTest {
    private static final List<ListEntry> ENTRIES = List.of(
            ListEntry.file(Location.parse("s3://bucket/p/a.safetensors"), 8, null, null),
            ListEntry.special(Location.parse("s3://bucket/p/locked/"), ListEntry.Kind.DENIED),
            ListEntry.special(Location.parse("s3://bucket/p/gone/"), ListEntry.Kind.UNREADABLE),
            ListEntry.special(Location.parse("s3://bucket/p/a%00b.safetensors"), ListEntry.Kind.INVALID_NAME),
            ListEntry.special(Location.parse("s3://bucket/p/latest/"), ListEntry.Kind.FOLDER_LINK),
            ListEntry.file(Location.parse("s3://bucket/p/z.safetensors"), 8, null, null));

    /** The entries given, as a listing of one page. */
    private static Listing listing(List<ListEntry> entries) {
        return FixedListing.of(entries);
    }

    private static ScanOptions options(String... keyValues) {
        Map<String, String> m = new java.util.HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return ScanOptions.parse(m);
    }

    @Test
    void aRefusedSubfolderFailsWithAccessDeniedNamingIt() {
        List<String> kept = new ArrayList<>();
        SourceAccessDeniedException e = assertThrows(SourceAccessDeniedException.class,
                () -> select(ENTRIES, options(), kept));
        assertEquals(ErrorCode.ACCESS_DENIED, ErrorCode.of(e));
        assertTrue(e.getMessage().startsWith("s3://bucket/p/locked/"), e.getMessage());
        assertTrue(e.getMessage().contains("allowUnreadable"), e.getMessage());
    }

    @Test
    void aFailedSubfolderAndAnUnnameableNameFailWithTheirCodes() {
        StorageException failed = assertThrows(StorageException.class, () -> select(List.of(ENTRIES.get(2)),
                options(), new ArrayList<>()));
        assertEquals(ErrorCode.IO_ERROR, ErrorCode.of(failed));
        StorageException unnamed = assertThrows(StorageException.class, () -> select(List.of(ENTRIES.get(3)),
                options(), new ArrayList<>()));
        assertEquals(ErrorCode.INVALID_LISTING, ErrorCode.of(unnamed));
    }

    @Test
    void allowUnreadableSkipsAndCountsThemAndKeepsTheRest() throws IOException {
        List<String> kept = new ArrayList<>();
        assertEquals(3, select(ENTRIES, options("allowUnreadable", "true"), kept));
        assertEquals(List.of("s3://bucket/p/a.safetensors", "s3://bucket/p/z.safetensors"), kept,
                "the link to a folder is not followed, and no unnameable name is opened");
    }

    private static long select(List<ListEntry> entries, ScanOptions options, List<String> kept) throws IOException {
        List<FileListing.Found> found = new ArrayList<>();
        long skipped = FileListing.select(listing(entries), options.glob(), options, found::add);
        found.forEach(f -> kept.add(f.location()));
        return skipped;
    }
}
