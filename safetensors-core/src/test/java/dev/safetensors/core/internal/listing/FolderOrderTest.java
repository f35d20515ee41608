package dev.safetensors.core.internal.listing;

import dev.safetensors.ErrorCode;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.StorageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A local folder lists in the order a bucket lists the same tree: by the code points of each entry's path below the
 * root, a subfolder's files right after it, so results of the command come sorted whatever order the file system
 * keeps its entries in.
 */
class FolderOrderTest {
    @TempDir
    Path root;

    private List<String> walk(ListOptions options) throws IOException {
        List<String> found = new ArrayList<>();
        try (FolderListing listing = FolderListing.open(root, options)) {
            while (listing.hasNext()) {
                ListEntry e = listing.next();
                String relative = root.relativize(Path.of(e.location().text())).toString();
                found.add(e.kind() == ListEntry.Kind.FOLDER ? relative + "/" : relative);
            }
        }
        return found;
    }

    @Test
    void aRecursiveWalkYieldsPathsInTheOrderOfABucketListing() throws IOException {
        List<String> created = new ArrayList<>();
        // written in reverse, and enough of them that a hashed directory order is not sorted by chance
        for (int i = 60; i >= 0; i--) {
            created.add(String.format("model-%05d.safetensors", i));
        }
        created.add("a-b/x.safetensors");
        created.add("a/x.safetensors");
        created.add("a.safetensors");
        created.add("a0.safetensors");
        created.add("\uE000.safetensors");
        created.add("\uD83D\uDE00.safetensors");
        for (String name : created) {
            Path p = root.resolve(name);
            Files.createDirectories(p.getParent());
            Files.write(p, new byte[1]);
        }
        List<String> files = new ArrayList<>();
        for (String entry : walk(ListOptions.DEFAULT.withRecursive(true))) {
            if (!entry.endsWith("/")) {
                files.add(entry);
            }
        }
        // a bucket sorts keys by their UTF-8 bytes: '-' < '.' < '/' < '0', and U+E000 before U+1F600
        List<String> keys = new ArrayList<>(created);
        keys.sort((x, y) -> java.util.Arrays.compareUnsigned(x.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                y.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertEquals(keys, files);
    }

    @Test
    void aOneLevelListingSortsFoldersAsTheirNameWithASlash() throws IOException {
        Files.createDirectories(root.resolve("a"));
        Files.write(root.resolve("a-b.safetensors"), new byte[1]);
        Files.write(root.resolve("a0.safetensors"), new byte[1]);
        Files.write(root.resolve("a.safetensors"), new byte[1]);
        assertEquals(List.of("a-b.safetensors", "a.safetensors", "a/", "a0.safetensors"), walk(ListOptions.DEFAULT));
    }

    @Test
    void aFolderHoldingMoreThanTheEntryBoundFailsBeforeItsFirstEntry() throws IOException {
        for (int i = 0; i < 5; i++) {
            Files.write(root.resolve(i + ".safetensors"), new byte[1]);
        }
        try (FolderListing listing = FolderListing.open(root, ListOptions.DEFAULT.withBounds(4, 10))) {
            StorageException e = assertThrows(StorageException.class, listing::hasNext);
            assertEquals(ErrorCode.INVALID_LISTING, e.code());
            assertTrue(e.getMessage().contains("more than 4 entries"), e.getMessage());
        }
    }

    @Test
    void codePointOrderIsUtf8ByteOrder() {
        assertTrue(FolderListing.byCodePoint("\uE000", "\uD83D\uDE00") < 0, "U+E000 before U+1F600");
        assertTrue("\uE000".compareTo("\uD83D\uDE00") > 0, "where String.compareTo puts it after");
        assertTrue(FolderListing.byCodePoint("a", "ab") < 0);
        assertEquals(0, FolderListing.byCodePoint("ab", "ab"));
    }
}
