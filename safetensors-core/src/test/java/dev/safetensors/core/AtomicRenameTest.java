package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link AtomicFile#rename}: the one way a complete file is put in place, atomically or not at all. */
class AtomicRenameTest {
    @TempDir
    Path dir;

    @Test
    void aFileReplacesWhatIsThereAndALinkThereIsReplacedNotWrittenThrough() throws IOException {
        Path elsewhere = Files.writeString(dir.resolve("elsewhere"), "keep", StandardCharsets.UTF_8);
        Path target = Files.createSymbolicLink(dir.resolve("model.safetensors"), elsewhere.getFileName());
        Path temp = Files.writeString(dir.resolve(".model.safetensors.tmp"), "new", StandardCharsets.UTF_8);
        AtomicFile.rename(temp, target);
        assertFalse(Files.isSymbolicLink(target));
        assertEquals("new", Files.readString(target));
        assertEquals("keep", Files.readString(elsewhere), "what the link pointed at is untouched");
        assertFalse(Files.exists(temp));
    }

    @Test
    void aRenameThatCannotBeAtomicMovesNothing() throws IOException {
        Path shm = Paths.get("/dev/shm");
        Assumptions.assumeTrue(Files.isDirectory(shm) && !Files.getFileStore(shm).equals(Files.getFileStore(dir)),
                "SKIPPED LOUDLY: no second file system (/dev/shm) beside the test folder on this machine, so no"
                        + " rename here can fail to be atomic");
        Path temp = Files.createTempFile(shm, "atomic-rename-", ".tmp");
        try {
            Files.write(temp, new byte[] {1, 2, 3});
            Path target = Files.write(dir.resolve("model.safetensors"), new byte[] {9});
            StorageException e = assertThrows(StorageException.class, () -> AtomicFile.rename(temp, target));
            assertEquals(ErrorCode.WRITE_FAILED, e.code());
            assertTrue(e.getMessage().contains("atomically"), e.getMessage());
            assertArrayEquals(new byte[] {9}, Files.readAllBytes(target), "the old file is whole");
            assertTrue(Files.exists(temp), "the new file was not copied across and deleted");
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    @Test
    void aMissingFileIsWriteFailedNamingTheTarget() {
        Path target = dir.resolve("model.safetensors");
        StorageException e = assertThrows(StorageException.class,
                () -> AtomicFile.rename(dir.resolve("gone.tmp"), target));
        assertEquals(ErrorCode.WRITE_FAILED, e.code());
        assertFalse(Files.exists(target));
    }
}
