package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import dev.safetensors.fixtures.ChildJvm;
import dev.safetensors.spi.TimeSource;
import dev.safetensors.testing.ManualTime;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The per-blob lock of the Hugging Face cache: where {@code huggingface_hub} keeps it, exclusive between threads of
 * one JVM (also through a second spelling of the cache) and between processes, waited for a bounded time on an
 * injected clock, and never taken through a link.
 */
class HubBlobLockTest {
    private static final URI FILE = URI.create("hf://acme/locked/model.safetensors");
    private static final String ETAG = "a".repeat(64);

    /** Holds the cache and, beside it, what is outside the cache. */
    @TempDir
    Path dir;
    Path root;
    Path outside;

    @BeforeEach
    void folders() throws Exception {
        root = Files.createDirectories(dir.resolve("cache"));
        outside = Files.createDirectories(dir.resolve("outside"));
    }

    private Path lockFile() {
        return root.resolve(".locks/models--acme--locked/" + ETAG + ".lock");
    }

    @Test
    void aLockHeldInThisJvmIsWaitedForOnTheClockThenTimesOutNamingTheLockFile() throws Exception {
        ManualTime time = new ManualTime();
        HubCache waiting = new HubCache(root, false, Duration.ofSeconds(5), time);
        Path linkedRoot = Files.createSymbolicLink(outside.resolve("linked-cache"), root);
        HubCache sameCacheElsewhere = new HubCache(linkedRoot, false, Duration.ofSeconds(5), time);
        try (HubBlobLock held = new HubCache(root, false).lockBlob(FILE, ETAG)) {
            assertEquals(lockFile(), held.file(), "huggingface_hub's lock file: .locks/REPOFOLDER/ETAG.lock");
            assertTrue(Files.isRegularFile(lockFile()));

            StorageException busy = assertThrows(StorageException.class, () -> waiting.lockBlob(FILE, ETAG));
            assertEquals(ErrorCode.TIMEOUT, busy.code());
            assertEquals(lockFile().toString(), busy.source(), "the failure names the lock file");
            assertEquals(50, time.sleeps().size(), "5 s of 100 ms pauses, on the injected clock");
            assertTrue(time.sleeps().stream().allMatch(HubBlobLock.POLL::equals), time.sleeps().toString());

            // the same folder through a link is the same lock, not a second one (nor an OverlappingFileLockException)
            StorageException alias = assertThrows(StorageException.class,
                    () -> sameCacheElsewhere.lockBlob(FILE, ETAG));
            assertEquals(ErrorCode.TIMEOUT, alias.code());
        }
        int before = time.sleeps().size();
        try (HubBlobLock again = waiting.lockBlob(FILE, ETAG)) {
            assertEquals(before, time.sleeps().size(), "a released lock is taken at once");
        }
        assertTrue(Files.isRegularFile(lockFile()), "the lock file stays, as huggingface_hub leaves its own");
    }

    @Test
    void aLockHeldByAnotherProcessExcludesThisOneUntilReleased() throws Exception {
        Files.createDirectories(lockFile().getParent());
        Process child = new ProcessBuilder(ChildJvm.command("-cp", ChildJvm.testClassPath(LockHolder.class),
                LockHolder.class.getName(), lockFile().toString())).redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        try {
            String line = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            assertEquals("locked", line, "the child holds the lock");
            ManualTime time = new ManualTime();
            HubCache cache = new HubCache(root, false, Duration.ofSeconds(1), time);
            StorageException busy = assertThrows(StorageException.class, () -> cache.lockBlob(FILE, ETAG));
            assertEquals(ErrorCode.TIMEOUT, busy.code());
            assertEquals(lockFile().toString(), busy.source());
            assertEquals(10, time.sleeps().size());

            child.getOutputStream().close();
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child ends when its input does");
            try (HubBlobLock held = cache.lockBlob(FILE, ETAG)) {
                assertEquals(lockFile(), held.file());
            }
        } finally {
            child.destroyForcibly();
        }
    }

    @Test
    void anInterruptedWaitIsCodedAndKeepsTheInterrupt() throws Exception {
        try (HubBlobLock held = new HubCache(root, false).lockBlob(FILE, ETAG)) {
            // TimeSource.SYSTEM's sleep returns at once for a thread already interrupted: no real pause
            HubCache waiting = new HubCache(root, false, Duration.ofMinutes(1), TimeSource.SYSTEM);
            Thread.currentThread().interrupt();
            try {
                StorageException e = assertThrows(StorageException.class, () -> waiting.lockBlob(FILE, ETAG));
                assertEquals(ErrorCode.INTERRUPTED, e.code());
                assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept for the caller");
            } finally {
                Thread.interrupted();
            }
        }
    }

    @Test
    void aLinkOrAFolderWhereTheLockFileBelongsIsRefusedNotFollowed() throws Exception {
        Files.createDirectories(lockFile().getParent());
        Path target = outside.resolve("victim");
        Files.createSymbolicLink(lockFile(), target);
        HubCache cache = new HubCache(root, false, Duration.ofSeconds(1), new ManualTime());
        StorageException link = assertThrows(StorageException.class, () -> cache.lockBlob(FILE, ETAG));
        assertEquals(ErrorCode.NOT_A_FILE, link.code());
        assertFalse(Files.exists(target, java.nio.file.LinkOption.NOFOLLOW_LINKS), "nothing created through the link");

        Files.delete(lockFile());
        Files.createDirectory(lockFile());
        StorageException folder = assertThrows(StorageException.class, () -> cache.lockBlob(FILE, ETAG));
        assertEquals(ErrorCode.NOT_A_FILE, folder.code());
        assertEquals(List.of(), List.of(outside.toFile().list()), "nothing outside the cache was touched");
    }
}
