package dev.safetensors.core.internal.listing;

import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A recursive walk never leaves its root through a link, lists each folder once, and reports what it did not enter:
 * links to folders, and subfolders whose reading is refused.
 */
class FolderWalkTest {
    /** Small enough that walking the whole file system through a link fails at once instead of running for long. */
    private static final ListOptions RECURSIVE = ListOptions.DEFAULT.withRecursive(true).withBounds(10_000, 10);

    @TempDir
    Path base;
    private Path root;
    private Path outside;

    @BeforeEach
    void folders() throws IOException {
        root = Files.createDirectories(base.resolve("root"));
        outside = Files.createDirectories(base.resolve("outside"));
    }

    private Map<String, ListEntry.Kind> walk(FolderListing listing) throws IOException {
        Map<String, ListEntry.Kind> found = new TreeMap<>();
        try (listing) {
            while (listing.hasNext()) {
                ListEntry e = listing.next();
                found.merge(root.relativize(Path.of(e.location().text())).toString(), e.kind(), (a, b) -> {
                    throw new AssertionError("listed twice: " + e.location());
                });
            }
        }
        return found;
    }

    @Test
    void aLinkToTheFileSystemRootIsReportedAndNotFollowed() throws IOException {
        Files.write(root.resolve("a.safetensors"), new byte[1]);
        Path everything = Files.createSymbolicLink(root.resolve("everything"), Path.of("/"));
        Files.createDirectories(root.resolve("sub"));
        Files.createSymbolicLink(root.resolve("sub/up"), root);
        try {
            assertEquals(Map.of("a.safetensors", ListEntry.Kind.FILE, "everything", ListEntry.Kind.FOLDER_LINK,
                    "sub", ListEntry.Kind.FOLDER, "sub/up", ListEntry.Kind.FOLDER_LINK),
                    walk(FolderListing.open(root, RECURSIVE)));
        } finally {
            Files.delete(everything);
        }
    }

    @Test
    void aDiamondOfLinksCostsTwoEntriesNotTwoToTheLevels() throws IOException {
        // outside/d0 .. d15, each holding two links to the next: followed, the last file is reached 2^16 ways
        int levels = 16;
        for (int i = levels; i >= 0; i--) {
            Path d = Files.createDirectories(outside.resolve("d" + i));
            if (i == levels) {
                Files.write(d.resolve("w.safetensors"), new byte[1]);
            } else {
                Files.createSymbolicLink(d.resolve("left"), outside.resolve("d" + (i + 1)));
                Files.createSymbolicLink(d.resolve("right"), outside.resolve("d" + (i + 1)));
            }
        }
        Files.createSymbolicLink(root.resolve("left"), outside.resolve("d0"));
        Files.createSymbolicLink(root.resolve("right"), outside.resolve("d0"));
        assertEquals(Map.of("left", ListEntry.Kind.FOLDER_LINK, "right", ListEntry.Kind.FOLDER_LINK),
                walk(FolderListing.open(root, RECURSIVE)));
    }

    @Test
    void aLinkToAFileIsReadAsTheFileAndAFolderLinkIsAFolderOneLevelDown() throws IOException {
        Files.write(outside.resolve("real.safetensors"), new byte[3]);
        Files.createSymbolicLink(root.resolve("linked.safetensors"), outside.resolve("real.safetensors"));
        Files.createSymbolicLink(root.resolve("folder"), outside);
        assertEquals(Map.of("linked.safetensors", ListEntry.Kind.FILE, "folder", ListEntry.Kind.FOLDER_LINK),
                walk(FolderListing.open(root, RECURSIVE)));
        assertEquals(Map.of("linked.safetensors", ListEntry.Kind.FILE, "folder", ListEntry.Kind.FOLDER),
                walk(FolderListing.open(root, ListOptions.DEFAULT)));
    }

    @Test
    void aSubfolderWhoseReadingIsRefusedIsReportedDenied() throws IOException {
        // the file system refuses "locked" as it refuses a folder of mode 000 to a user without the right to it;
        // the stand-in makes that hold for root too, who reads any folder
        Files.write(root.resolve("a.safetensors"), new byte[1]);
        Path locked = Files.createDirectories(root.resolve("locked"));
        Files.write(locked.resolve("hidden.safetensors"), new byte[1]);
        FolderListing.Folders refusing = dir -> {
            if (dir.equals(locked)) {
                throw new AccessDeniedException(dir.toString());
            }
            return Files.newDirectoryStream(dir);
        };
        assertEquals(Map.of("a.safetensors", ListEntry.Kind.FILE, "locked", ListEntry.Kind.DENIED),
                walk(FolderListing.open(root, RECURSIVE, refusing)));
    }

    @Test
    void aFolderOfModeZeroIsDeniedToAUserWithoutTheRightToIt() throws IOException {
        Path locked = Files.createDirectories(root.resolve("locked"));
        Files.write(locked.resolve("hidden.safetensors"), new byte[1]);
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("---------"));
        try {
            boolean refused;
            try {
                Files.newDirectoryStream(locked).close();
                refused = false;
            } catch (AccessDeniedException e) {
                refused = true;
            }
            assumeTrue(refused, "SKIPPED: this user (root) may read a folder of mode 000, so the file system"
                    + " refuses nothing here; aSubfolderWhoseReadingIsRefusedIsReportedDenied covers the refusal");
            assertEquals(Map.of("locked", ListEntry.Kind.DENIED), walk(FolderListing.open(root, RECURSIVE)));
        } finally {
            Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("rwx------"));
        }
    }
}
