package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.StorageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Local folders listed through {@link SourceRegistry#list}: nothing dropped, no loop followed, no request. */
class FolderListingTest {
    @TempDir
    Path dir;

    private Map<String, ListEntry.Kind> list(Path folder, boolean recursive) throws IOException {
        Map<String, ListEntry.Kind> found = new TreeMap<>();
        try (SourceRegistry registry = SourceRegistry.builder().build();
             Listing listing = registry.list(Location.of(folder), ListOptions.DEFAULT.withRecursive(recursive))) {
            while (listing.hasNext()) {
                ListEntry e = listing.next();
                found.put(folder.relativize(Path.of(e.location().text())).toString(), e.kind());
            }
            assertEquals(0, listing.cost().requests(), "a local folder costs no request");
        }
        return found;
    }

    @Test
    void specialEntriesAreReportedWithTheirKind() throws Exception {
        Files.write(dir.resolve("a.safetensors"), new byte[] {1, 2, 3});
        Files.createSymbolicLink(dir.resolve("dangling.safetensors"), dir.resolve("missing"));
        Fifo.create(dir.resolve("pipe.safetensors"));
        Files.createDirectories(dir.resolve("sub/deeper"));
        Files.write(dir.resolve("sub/deeper/b.safetensors"), new byte[0]);
        Files.createSymbolicLink(dir.resolve("sub/loop"), dir);
        assertEquals(Map.of("a.safetensors", ListEntry.Kind.FILE, "dangling.safetensors", ListEntry.Kind.DANGLING_LINK,
                "pipe.safetensors", ListEntry.Kind.FIFO, "sub", ListEntry.Kind.FOLDER), list(dir, false));
        assertEquals(Map.of("a.safetensors", ListEntry.Kind.FILE, "dangling.safetensors", ListEntry.Kind.DANGLING_LINK,
                "pipe.safetensors", ListEntry.Kind.FIFO, "sub", ListEntry.Kind.FOLDER, "sub/deeper",
                ListEntry.Kind.FOLDER, "sub/deeper/b.safetensors", ListEntry.Kind.FILE, "sub/loop",
                ListEntry.Kind.FOLDER_LINK), list(dir, true));
    }

    @Test
    void whatAWalkDidNotEnterIsSelectedWhateverItsName() throws Exception {
        Files.write(dir.resolve("a.safetensors"), new byte[1]);
        Files.write(dir.resolve("notes.txt"), new byte[1]);
        Files.createDirectories(dir.resolve("checkpoint-1000"));
        Files.createSymbolicLink(dir.resolve("latest"), dir.resolve("checkpoint-1000"));
        Files.createSymbolicLink(dir.resolve("skipped"), dir.resolve("checkpoint-1000"));
        Map<String, ListEntry.Kind> selected = new TreeMap<>();
        try (SourceRegistry registry = SourceRegistry.builder().build();
             PrefixSelection s = SafetensorsClient.builder().registry(registry).build().select(Location.of(dir),
                     new Selection(List.of(NameGlob.compile("*.safetensors")), List.of(NameGlob.compile("skip*")),
                             true))) {
            while (s.hasNext()) {
                ListEntry e = s.next();
                selected.put(dir.relativize(Path.of(e.location().text())).toString(), e.kind());
            }
        }
        assertEquals(Map.of("a.safetensors", ListEntry.Kind.FILE, "latest", ListEntry.Kind.FOLDER_LINK), selected,
                "a link not followed is said; an excluded name is not; a plain folder and other files are not");
    }

    @Test
    void aFileEntryCarriesItsSizeAndTime() throws Exception {
        Files.write(dir.resolve("a.safetensors"), new byte[42]);
        try (SourceRegistry registry = SourceRegistry.builder().build();
             Listing listing = registry.list(Location.of(dir), ListOptions.DEFAULT)) {
            ListEntry e = listing.next();
            assertEquals(42, e.size());
            assertTrue(e.lastModified().isPresent());
            assertFalse(listing.hasNext());
        }
    }

    @Test
    void tenThousandFilesListInOnePassWithoutARequest() throws Exception {
        for (int i = 0; i < 10_000; i++) {
            Files.createFile(dir.resolve(String.format("m%05d.safetensors", i)));
        }
        Map<String, ListEntry.Kind> found = list(dir, true);
        assertEquals(10_000, found.size());
        assertTrue(found.values().stream().allMatch(k -> k == ListEntry.Kind.FILE));
    }

    @Test
    void aMissingFolderAndAFileAreCodedFailures() throws Exception {
        Path file = Files.write(dir.resolve("a.safetensors"), new byte[1]);
        try (SourceRegistry registry = SourceRegistry.builder().build()) {
            StorageException missing = assertThrows(StorageException.class,
                    () -> registry.list(Location.of(dir.resolve("nope")), ListOptions.DEFAULT));
            assertEquals(ErrorCode.NOT_FOUND, missing.code());
            StorageException notFolder = assertThrows(StorageException.class,
                    () -> registry.list(Location.of(file), ListOptions.DEFAULT));
            assertEquals(ErrorCode.NOT_A_FILE, notFolder.code());
        }
    }

    @Test
    void theEntryBoundEndsAListing() throws Exception {
        for (int i = 0; i < 5; i++) {
            Files.createFile(dir.resolve(i + ".safetensors"));
        }
        try (SourceRegistry registry = SourceRegistry.builder().build();
             Listing listing = registry.list(Location.of(dir), ListOptions.DEFAULT.withBounds(3, 10))) {
            StorageException e = assertThrows(StorageException.class, () -> {
                while (listing.hasNext()) {
                    listing.next();
                }
            });
            assertEquals(ErrorCode.INVALID_LISTING, e.code());
        }
    }

    @Test
    void storageWithoutAListingCallIsNotListable() throws Exception {
        RandomAccessSourceProvider plain = new RandomAccessSourceProvider() {
            @Override
            public boolean supports(Location location) {
                return "https".equals(location.scheme());
            }

            @Override
            public RandomAccessSource open(Location location) throws IOException {
                throw new AssertionError("never opened");
            }
        };
        try (SourceRegistry registry = SourceRegistry.builder().provider(plain).build()) {
            InvalidLocationException e = assertThrows(InvalidLocationException.class,
                    () -> registry.list(Location.parse("https://example.com/models/"), ListOptions.DEFAULT));
            assertEquals(ErrorCode.NOT_LISTABLE, e.code());
            InvalidLocationException unknown = assertThrows(InvalidLocationException.class,
                    () -> registry.list(Location.parse("ftp://example.com/models/"), ListOptions.DEFAULT));
            assertEquals(ErrorCode.UNSUPPORTED_SCHEME, unknown.code());
        }
    }

    @Test
    void globsMatchFileNamesAndRefuseMalformedPatterns() {
        NameGlob glob = NameGlob.compile("*.safetensors");
        assertTrue(glob.matches("a.safetensors"));
        assertFalse(glob.matches("a.safetensors.index.json"));
        assertFalse(glob.matches("dir/a.safetensors"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NameGlob.compile("["));
        assertTrue(e.getMessage().contains("'['"), e.getMessage());
        assertEquals("b.safetensors", PrefixSelection.name(Location.parse("s3://bucket/p/b.safetensors")));
        assertEquals("x.safetensors", PrefixSelection.name(Location.parse("s3://bucket/p/x.safetensors/")));
    }
}
