package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RepositoryListing;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.StorageException;
import dev.safetensors.fixtures.FakeHub;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Hugging Face cache shared with {@code huggingface_hub}: a cache folder laid out as {@code file_download.py}
 * writes it is read without requests at a commit and offline, with one HEAD at a branch; what this class links is
 * laid out the same way.
 */
class HubCacheTest {
    private static final FakeHub HUB = new FakeHub();
    private static final String C = FakeHub.COMMIT;
    private static final byte[] BYTES = "sixteen bytes!!!".getBytes(StandardCharsets.US_ASCII);

    /** Holds the cache and, beside it, what is outside the cache. */
    @TempDir
    Path dir;
    Path root;
    Path outside;

    @BeforeEach
    void reset() throws Exception {
        HUB.reset();
        root = Files.createDirectories(dir.resolve("cache"));
        outside = Files.createDirectories(dir.resolve("outside"));
    }

    @AfterAll
    static void stop() {
        HUB.close();
    }

    /** Lays out {@code models--acme--cached} as huggingface_hub does: blob by SHA-256, relative link, ref. */
    private String pythonLayout() throws Exception {
        String sha = FakeHub.linkedEtag(BYTES).replace("\"", "");
        Path repo = root.resolve("models--acme--cached");
        Files.createDirectories(repo.resolve("blobs"));
        Files.write(repo.resolve("blobs").resolve(sha), BYTES);
        Path snapshot = repo.resolve("snapshots").resolve(C);
        Files.createDirectories(snapshot.resolve("unet"));
        Files.createSymbolicLink(snapshot.resolve("model.safetensors"), Path.of("../../blobs/" + sha));
        Files.createSymbolicLink(snapshot.resolve("unet/model.safetensors"), Path.of("../../../blobs/" + sha));
        Files.createDirectories(repo.resolve("refs"));
        Files.writeString(repo.resolve("refs/main"), C);
        return sha;
    }

    private static byte[] readAll(RandomAccessSource s) throws Exception {
        ByteBuffer b = ByteBuffer.allocate((int) s.size());
        s.readFully(0, b);
        return b.array();
    }

    @Test
    void aPythonCacheIsReadAtACommitWithoutARequest() throws Exception {
        String sha = pythonLayout();
        try (HttpSourceProvider p = new HttpSourceProvider(FakeHubSettings.of(HUB).build(), new HubCache(root, false));
             RandomAccessSource s = p.open(Location.parse("hf://acme/cached@" + C + "/model.safetensors"))) {
            assertArrayEquals(BYTES, readAll(s));
            assertEquals(sha, s.attributes().get("linked_etag"));
            assertEquals(C, s.attributes().get("revision"));
            RepositoryListing listing = p.listCheckpoints(Location.parse("hf://acme/cached@" + C)).orElseThrow();
            assertEquals(List.of("", "unet"), listing.checkpoints().stream().map(c -> c.folder()).toList());
            assertEquals(0, listing.cost().requests());
        }
        assertEquals(0, HUB.hubRequests().size());
        assertEquals(0, HUB.cdnRequests().size());
    }

    @Test
    void aBlobNamedByAGitSha1ReportsNoDigest() throws Exception {
        // a file kept in Git, not LFS: huggingface_hub names its blob by the Git blob's SHA-1, which is no SHA-256
        String sha1 = "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3";
        Path repo = root.resolve("models--acme--git");
        Files.createDirectories(repo.resolve("blobs"));
        Files.write(repo.resolve("blobs").resolve(sha1), BYTES);
        Path snapshot = Files.createDirectories(repo.resolve("snapshots").resolve(C));
        Files.createSymbolicLink(snapshot.resolve("model.safetensors"), Path.of("../../blobs/" + sha1));
        try (HttpSourceProvider p = new HttpSourceProvider(FakeHubSettings.of(HUB).build(), new HubCache(root, false));
             RandomAccessSource s = p.open(Location.parse("hf://acme/git@" + C + "/model.safetensors"))) {
            assertArrayEquals(BYTES, readAll(s));
            assertEquals(new dev.safetensors.SourceIdentity(null, null, "acme/git", C, null), s.identity());
        }
        assertEquals(0, HUB.hubRequests().size());
    }

    @Test
    void aBranchCostsOneHeadOnlineAndNothingOffline() throws Exception {
        pythonLayout();
        HUB.publish("acme/cached", "model.safetensors", BYTES);
        try (HttpSourceProvider p = new HttpSourceProvider(FakeHubSettings.of(HUB).build(), new HubCache(root, false));
             RandomAccessSource s = p.open(Location.parse("hf://acme/cached/model.safetensors"))) {
            assertArrayEquals(BYTES, readAll(s));
        }
        assertEquals(1, HUB.hubRequests().size());
        assertEquals("HEAD", HUB.hubRequests().get(0).getMethod().getName());
        assertEquals(0, HUB.cdnRequests().size());

        HUB.reset();
        try (HttpSourceProvider p = new HttpSourceProvider(FakeHubSettings.of(HUB).build(), new HubCache(root, true))) {
            try (RandomAccessSource s = p.open(Location.parse("hf://acme/cached/unet/model.safetensors"))) {
                assertArrayEquals(BYTES, readAll(s));
            }
            SourceNotFoundException missing = assertThrows(SourceNotFoundException.class,
                    () -> p.open(Location.parse("hf://acme/cached/absent.safetensors")));
            assertEquals(ErrorCode.NOT_FOUND, missing.code());
            assertTrue(missing.getMessage().contains("HF_HUB_OFFLINE"), missing.getMessage());
            assertEquals(2, p.listCheckpoints(Location.parse("hf://acme/cached")).orElseThrow().checkpoints().size());
        }
        assertEquals(0, HUB.hubRequests().size());
    }

    @Test
    void aFileNotCachedIsReadFromTheHubPinnedToTheResolvedCommit() throws Exception {
        pythonLayout();
        byte[] other = "other bytes".getBytes(StandardCharsets.US_ASCII);
        HUB.publish("acme/cached", "other.safetensors", other);
        try (HttpSourceProvider p = new HttpSourceProvider(FakeHubSettings.of(HUB).build(), new HubCache(root, false));
             RandomAccessSource s = p.open(Location.parse("hf://acme/cached/other.safetensors"))) {
            assertArrayEquals(other, readAll(s));
        }
        assertEquals("HEAD", HUB.hubRequests().get(0).getMethod().getName());
        assertTrue(HUB.hubRequests().get(1).getUrl().contains("/resolve/" + C + "/"), "pinned to the commit");
        HUB.reset();
        HUB.publish("acme/cached", "same.safetensors", BYTES);
        try (HttpSourceProvider p = new HttpSourceProvider(FakeHubSettings.of(HUB).build(), new HubCache(root, false));
             RandomAccessSource s = p.open(Location.parse("hf://acme/cached/same.safetensors"))) {
            assertArrayEquals(BYTES, readAll(s));
        }
        assertEquals(1, HUB.hubRequests().size(), "a blob already cached under its SHA-256 is not fetched again");
        assertEquals(0, HUB.cdnRequests().size());
    }

    /** Replaces an entry of the cache with a link to {@code target}. */
    private static void plant(Path entry, Path target) throws Exception {
        Files.delete(entry);
        Files.createSymbolicLink(entry, target);
    }

    /** Reads {@code location} through the cache and expects the refusal, with no request made for it. */
    private void assertRefused(String location, boolean offline) throws Exception {
        try (HttpSourceProvider p = new HttpSourceProvider(FakeHubSettings.of(HUB).build(),
                new HubCache(root, offline))) {
            StorageException e = assertThrows(StorageException.class, () -> p.open(Location.parse(location)).close(),
                    location);
            assertEquals(ErrorCode.NOT_A_FILE, e.code(), e.getMessage());
        }
    }

    @Test
    void aSnapshotLinkLeadingOutsideTheRepositorysBlobsIsNotCachedAndNeverRead() throws Exception {
        String sha = pythonLayout();
        Path secret = Files.write(outside.resolve("passwd"), BYTES);
        Path snapshot = root.resolve("models--acme--cached/snapshots/" + C);
        Path entry = snapshot.resolve("model.safetensors");
        HubCache cache = new HubCache(root, false);
        URI atCommit = URI.create("hf://acme/cached@" + C + "/model.safetensors");
        assertTrue(cache.cachedFile(atCommit, C).isPresent(), "the layout as huggingface_hub writes it is cached");

        Files.createDirectories(root.resolve("models--acme--other/blobs"));
        Files.write(root.resolve("models--acme--other/blobs/" + sha), BYTES);
        List<Path> hostile = List.of(
                secret,                                             // an absolute link out of the cache
                Path.of("../../../../outside/passwd"), // a relative one
                Path.of("../../../models--acme--other/blobs/" + sha),      // another repository's blob
                Path.of("../../blobs/../../models--acme--other/blobs/" + sha));
        for (Path target : hostile) {
            plant(entry, target);
            assertTrue(cache.cachedFile(atCommit, C).isEmpty(), "not cached: " + target);
            assertRefused(atCommit.toString(), false);
            assertRefused("hf://acme/cached/model.safetensors", true);
        }

        // the link is right but the blob itself, or the snapshot folder it sits in, leads out of the cache
        plant(entry, Path.of("../../blobs/" + sha));
        Path blob = root.resolve("models--acme--cached/blobs/" + sha);
        plant(blob, secret);
        assertTrue(cache.cachedFile(atCommit, C).isEmpty());
        assertRefused(atCommit.toString(), false);
        Files.delete(blob);
        Files.write(blob, BYTES);
        Path unet = snapshot.resolve("unet");
        Path elsewhere = Files.createDirectories(outside.resolve("a/b/unet"));
        // ../../../blobs/SHA reads as the repository's blob, but from the folder the link really is in it leads here
        Files.createDirectories(outside.resolve("blobs"));
        Files.write(outside.resolve("blobs/" + sha), BYTES);
        Files.createSymbolicLink(elsewhere.resolve("model.safetensors"), Path.of("../../../blobs/" + sha));
        try (var walk = Files.walk(unet)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        Files.createSymbolicLink(unet, elsewhere);
        URI inUnet = URI.create("hf://acme/cached@" + C + "/unet/model.safetensors");
        assertTrue(cache.cachedFile(inUnet, C).isEmpty(), "a snapshot folder that is a link is not the cache");
        assertRefused(inUnet.toString(), false);
        assertTrue(cache.cachedFile(atCommit, C).isPresent(), "the repaired entry is cached again");
        assertEquals(0, HUB.hubRequests().size(), "a refusal asks the Hub nothing");
        assertEquals(0, HUB.cdnRequests().size());
    }

    @Test
    void aRefThatIsALinkNamesNoCommit() throws Exception {
        pythonLayout();
        Path ref = Files.writeString(outside.resolve("main"), C);
        plant(root.resolve("models--acme--cached/refs/main"), ref);
        try (HttpSourceProvider p = new HttpSourceProvider(FakeHubSettings.of(HUB).build(), new HubCache(root, true))) {
            SourceNotFoundException e = assertThrows(SourceNotFoundException.class,
                    () -> p.open(Location.parse("hf://acme/cached/model.safetensors")).close());
            assertEquals(ErrorCode.NOT_FOUND, e.code());
            assertTrue(e.getMessage().contains("no ref"), e.getMessage());
        }
        assertTrue(new HubCache(root, false).knownCommit(URI.create("hf://acme/cached/model.safetensors")).isEmpty());
    }

    @Test
    void aBlobLeadingOutsideTheCacheIsRefusedWhenABranchNamesIt() throws Exception {
        String sha = pythonLayout();
        Path secret = Files.write(outside.resolve("passwd"), BYTES);
        HUB.publish("acme/cached", "fresh.safetensors", BYTES);
        // the file is not in the snapshot, but the Hub's ETag names a blob of the cache: a link planted there
        plant(root.resolve("models--acme--cached/blobs/" + sha), secret);
        assertRefused("hf://acme/cached/fresh.safetensors", false);
        assertEquals(1, HUB.hubRequests().size(), "the HEAD only");
        assertEquals(0, HUB.cdnRequests().size(), "refused, not fetched instead");
    }

    @Test
    void linkWritesWhatHuggingFaceHubReads() throws Exception {
        HubCache cache = new HubCache(root, false);
        URI file = URI.create("hf://datasets/acme/data/sub/x.safetensors");
        Path blob = cache.blob(file, "abc123");
        Files.createDirectories(blob.getParent());
        Files.write(blob, BYTES);
        Path pointer = cache.link(file, C, "abc123");
        assertEquals(root.resolve("datasets--acme--data/snapshots/" + C + "/sub/x.safetensors"), pointer);
        assertEquals(Path.of("../../../blobs/abc123"), Files.readSymbolicLink(pointer));
        assertEquals(C, Files.readString(root.resolve("datasets--acme--data/refs/main")));
        assertArrayEquals(BYTES, Files.readAllBytes(pointer));
        assertEquals(C, cache.knownCommit(URI.create("hf://datasets/acme/data/sub/x.safetensors")).orElseThrow());
        // a second download that finds the link made (by another process) leaves it as it is
        assertEquals(pointer, cache.link(file, C, "abc123"));
        assertEquals(Path.of("../../../blobs/abc123"), Files.readSymbolicLink(pointer));
    }

    @Test
    void theRootAndOfflineFlagFollowHuggingFaceHubsEnvironment() {
        Path home = Path.of("/home/u");
        assertEquals(Path.of("/c"), HubCache.fromEnvironment(Map.of("HF_HUB_CACHE", "/c", "HF_HOME", "/h"), home).root());
        assertEquals(Path.of("/h/hub"), HubCache.fromEnvironment(Map.of("HF_HOME", "/h"), home).root());
        assertEquals(Path.of("/x/huggingface/hub"),
                HubCache.fromEnvironment(Map.of("XDG_CACHE_HOME", "/x"), home).root());
        assertEquals(Path.of("/home/u/.cache/huggingface/hub"), HubCache.fromEnvironment(Map.of(), home).root());
        assertTrue(HubCache.fromEnvironment(Map.of("HF_HUB_OFFLINE", "yes"), home).offline());
        assertTrue(HubCache.fromEnvironment(Map.of("HF_HUB_OFFLINE", "1"), home).offline());
        assertFalse(HubCache.fromEnvironment(Map.of("HF_HUB_OFFLINE", "0"), home).offline());
        assertEquals("abc", HubCache.normalizeEtag("W/\"abc\""));
    }
}
