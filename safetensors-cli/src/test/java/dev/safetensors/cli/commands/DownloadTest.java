package dev.safetensors.cli.commands;

import dev.safetensors.Location;
import dev.safetensors.core.SafetensorsClient;
import dev.safetensors.core.SourceRegistry;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.core.CheckpointFiles;
import dev.safetensors.core.DownloadRequest;
import dev.safetensors.core.DownloadedFile;
import dev.safetensors.core.ReadOptions;
import dev.safetensors.core.Safetensors;
import dev.safetensors.http.HttpSettings;
import dev.safetensors.http.HttpSourceProvider;
import dev.safetensors.http.HubCache;
import dev.safetensors.http.HubRepository;
import dev.safetensors.fixtures.FakeHub;
import dev.safetensors.spi.TimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.safetensors.cli.Fixtures;

/**
 * {@code safetensors download}'s work against the fake Hub: a sharded repository downloaded into a cache folder is
 * then read with 0 requests to the Hub, in the layout huggingface_hub reads; to a folder, every file verified; a
 * checkpoint whose header fails is not downloaded.
 */
class DownloadTest {
    private static final String REPO = "acme/two";
    private static final List<String> FILES = List.of("config.json", "model-00001-of-00002.safetensors",
            "model-00002-of-00002.safetensors", "model.safetensors.index.json");

    @TempDir
    Path dir;
    private FakeHub hub;
    private HttpSettings settings;

    @BeforeEach
    void start() throws Exception {
        Path served = dir.resolve("served");
        Fixtures.twoShards(served.resolve(REPO));
        Fixtures.write(served.resolve(REPO), "config.json", "{\"model_type\":\"two\"}");
        hub = new FakeHub();
        hub.repository(REPO, dir.resolve("served"), FILES);
        settings = HttpSettings.builder().hubEndpoint(hub.endpoint())
                .connectTimeout(Duration.ofSeconds(2)).requestTimeout(Duration.ofSeconds(10)).build();
    }

    @AfterEach
    void stop() throws Exception {
        hub.close();
    }

    private static SafetensorsClient through(HttpSourceProvider provider) {
        // the registry owns nothing here: the provider is the test's, closed by the test
        return SafetensorsClient.builder().registry(SourceRegistry.builder().provider(provider).build()).build();
    }

    /** The download service as the command runs it: four parts at once, the smallest parts, progress counted. */
    private final class Download {
        private final SafetensorsClient client;
        private final DownloadRequest request;

        Download(HttpSourceProvider provider, LongConsumer advance) {
            client = through(provider).newBuilder().readOptions(ReadOptions.builder().parallelism(4)
                    .partSizeBytes(ReadOptions.MIN_PART_SIZE_BYTES).build()).build();
            request = DownloadRequest.builder().listener(new DownloadRequest.Listener() {
                @Override
                public void fetched(long bytes) {
                    advance.accept(bytes);
                }
            }).build();
        }

        List<DownloadedFile> toCache(String location, HubCache cache) throws IOException {
            Location at = Location.parse(location);
            return client.download(at, HubCacheTarget.of(at, cache, new HubRepository(settings)), request).files();
        }

        List<DownloadedFile> toFolder(String location, Path out) throws IOException {
            return client.download(Location.parse(location), out, request).files();
        }
    }

    private Download downloader(HttpSourceProvider provider, AtomicLong bytes) {
        return new Download(provider, bytes::addAndGet);
    }

    private Download downloader(HttpSourceProvider provider, LongConsumer advance) {
        return new Download(provider, advance);
    }

    /** Waits for another thread of the test, bounded so that a broken lock fails the test instead of hanging it. */
    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new AssertionError("the other download never got there");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    void twoDownloadsIntoOneCacheAtOnceBothSucceedAndTheSecondFetchesNothing() throws Exception {
        Path root = dir.resolve("cache");
        String location = "hf://" + REPO + "@" + FakeHub.COMMIT;
        // B is inside: waiting for A's lock (with the lock), or holding the partial blob A is writing (without one)
        CountDownLatch aInside = new CountDownLatch(1);
        CountDownLatch bInside = new CountDownLatch(1);
        CountDownLatch aDone = new CountDownLatch(1);
        AtomicLong bNanos = new AtomicLong();
        TimeSource bTime = new TimeSource() {
            @Override
            public long nanoTime() {
                return bNanos.get();
            }

            @Override
            public Instant now() {
                return Instant.EPOCH.plusNanos(bNanos.get());
            }

            @Override
            public void sleep(Duration d) {
                // no real pause: B's next attempt comes once A has finished
                bInside.countDown();
                await(aDone);
                bNanos.addAndGet(d.toNanos());
            }
        };
        AtomicBoolean aFirst = new AtomicBoolean(true);
        AtomicBoolean bFirst = new AtomicBoolean(true);
        ExecutorService runA = Executors.newSingleThreadExecutor();
        try (HttpSourceProvider providerA = new HttpSourceProvider(settings);
             HttpSourceProvider providerB = new HttpSourceProvider(settings)) {
            // A stops in the middle of its first file, its partial blob open, until B has reached the same blob
            Future<List<DownloadedFile>> a = runA.submit(() -> {
                try {
                    return downloader(providerA, n -> {
                        if (aFirst.getAndSet(false)) {
                            aInside.countDown();
                            await(bInside);
                        }
                    }).toCache(location, new HubCache(root, false));
                } finally {
                    aDone.countDown();
                }
            });
            await(aInside);
            List<DownloadedFile> b = downloader(providerB, n -> {
                if (bFirst.getAndSet(false)) {
                    bInside.countDown();
                    await(aDone);
                }
            }).toCache(location, new HubCache(root, false, Duration.ofMinutes(1), bTime));
            List<DownloadedFile> doneA = a.get(60, TimeUnit.SECONDS);

            assertEquals(4, doneA.size());
            assertTrue(doneA.stream().allMatch(d -> d.download().orElse(null).verified()), doneA.toString());
            long total = 0;
            for (String f : FILES) {
                total += Files.size(dir.resolve("served").resolve(REPO).resolve(f));
            }
            assertEquals(total, doneA.stream().mapToLong(d -> d.download().orElse(null).fetched()).sum(), "A fetched every byte");
            assertEquals(4, b.size());
            assertTrue(b.stream().allMatch(d -> d.download().orElse(null).skipped() && d.download().orElse(null).fetched() == 0),
                    "B got each lock after A finished and found every blob in place: " + b);
            assertTrue(bNanos.get() > 0, "B waited for A's lock");
        } finally {
            runA.shutdownNow();
        }
        Path repo = root.resolve("models--acme--two");
        for (String f : FILES) {
            Path pointer = repo.resolve("snapshots/" + FakeHub.COMMIT).resolve(f);
            assertArrayEquals(Files.readAllBytes(dir.resolve("served").resolve(REPO).resolve(f)),
                    Files.readAllBytes(pointer), f);
        }
        try (var blobs = Files.list(repo.resolve("blobs"))) {
            assertTrue(blobs.noneMatch(p -> p.getFileName().toString().endsWith(".incomplete")));
        }
        try (var locks = Files.list(root.resolve(".locks/models--acme--two"))) {
            assertEquals(4, locks.filter(p -> p.getFileName().toString().endsWith(".lock")).count(),
                    "one huggingface_hub lock file per blob");
        }
    }

    @Test
    void aSnapshotLinkLeadingOutsideTheCacheIsNotPresentAndIsReplaced() throws Exception {
        String shard = FILES.get(1);
        Path served = dir.resolve("served").resolve(REPO).resolve(shard);
        // the same bytes outside the cache: only where the link leads tells it from the cached file
        Path outside = Files.copy(served, dir.resolve("elsewhere.safetensors"));
        Path snapshot = dir.resolve("cache/models--acme--two/snapshots/" + FakeHub.COMMIT);
        Files.createDirectories(snapshot);
        Files.createSymbolicLink(snapshot.resolve(shard), outside);
        HubCache cache = new HubCache(dir.resolve("cache"), false);
        List<DownloadedFile> done;
        // listed from the Hub: the snapshot holding only the planted link is no listing of the repository
        try (HttpSourceProvider provider = new HttpSourceProvider(settings)) {
            done = downloader(provider, new AtomicLong()).toCache("hf://" + REPO + "@" + FakeHub.COMMIT, cache);
        }
        DownloadedFile d = done.stream().filter(x -> x.source().text().endsWith("/" + shard)).findFirst().orElseThrow();
        assertTrue(d.download().orElse(null) != null && !d.download().orElse(null).skipped(), "downloaded, not present: " + d);
        assertEquals(Path.of("../../blobs/" + Fixtures.sha256(served)), Files.readSymbolicLink(d.path()),
                "the link now leads to the repository's blob");
        assertArrayEquals(Files.readAllBytes(served), Files.readAllBytes(outside), "the outside file untouched");
    }

    @Test
    void aSignedUrlTheCacheRefusesIsNamedWithoutItsSecrets() throws Exception {
        HubCache cache = new HubCache(dir.resolve("cache"), false);
        try (HttpSourceProvider provider = new HttpSourceProvider(settings, cache)) {
            dev.safetensors.InvalidLocationException e = org.junit.jupiter.api.Assertions.assertThrows(
                    dev.safetensors.InvalidLocationException.class, () -> downloader(provider, new AtomicLong())
                            .toCache("https://user:PASSWORD@h.example/m.safetensors?X-Amz-Signature=SIGNATURE", cache));
            assertEquals(dev.safetensors.ErrorCode.INVALID_SOURCE, e.code());
            assertFalse(e.getMessage().contains("PASSWORD") || e.getMessage().contains("SIGNATURE"), e.getMessage());
        }
    }

    @Test
    void aRepositoryDownloadedIntoTheCacheIsThenReadWithoutARequest() throws Exception {
        HubCache cache = new HubCache(dir.resolve("cache"), false);
        AtomicLong bytes = new AtomicLong();
        List<DownloadedFile> done;
        try (HttpSourceProvider provider = new HttpSourceProvider(settings, cache)) {
            done = downloader(provider, bytes).toCache("hf://" + REPO, cache);
        }
        assertEquals(4, done.size(), done.toString());
        Path repo = dir.resolve("cache/models--acme--two");
        assertEquals(FakeHub.COMMIT, Files.readString(repo.resolve("refs/main")));
        for (DownloadedFile d : done) {
            assertTrue(Files.isSymbolicLink(d.path()), d.path().toString());
            String name = d.path().getFileName().toString();
            assertArrayEquals(Files.readAllBytes(dir.resolve("served").resolve(REPO).resolve(name)),
                    Files.readAllBytes(d.path()));
            assertTrue(d.download().orElse(null).verified(), "the Hub's SHA-256 checked: " + name);
            assertEquals(Fixtures.sha256(d.path()), Files.readSymbolicLink(d.path()).getFileName().toString(),
                    "blobs are named by their SHA-256, as huggingface_hub names LFS blobs");
        }
        long total = 0;
        for (String f : FILES) {
            total += Files.size(dir.resolve("served").resolve(REPO).resolve(f));
        }
        assertEquals(total, bytes.get(), "every byte once");

        int hubBefore = hub.hubRequests().size();
        int cdnBefore = hub.cdnRequests().size();
        try (HttpSourceProvider provider = new HttpSourceProvider(settings, cache)) {
            List<CheckpointFiles> checkpoints = through(provider).locateAll(
                    dev.safetensors.Location.parse("hf://" + REPO + "@" + FakeHub.COMMIT));
            assertEquals(1, checkpoints.size());
            assertEquals(2, checkpoints.get(0).shards().size());
            for (Location shard : checkpoints.get(0).shards()) {
                try (RandomAccessSource s = provider.open(shard)) {
                    assertFalse(Safetensors.readHeader(s).tensors().isEmpty());
                    assertEquals(0, s.statistics().exchanges(), "read from the cache: nothing on the wire");
                }
            }
        }
        assertEquals(hubBefore, hub.hubRequests().size(), "no request to the Hub");
        assertEquals(cdnBefore, hub.cdnRequests().size(), "no request to the CDN");

        // a second download finds everything in place and fetches nothing
        try (HttpSourceProvider provider = new HttpSourceProvider(settings, cache)) {
            List<DownloadedFile> again = downloader(provider, new AtomicLong()).toCache("hf://" + REPO + "@"
                    + FakeHub.COMMIT, cache);
            assertTrue(again.stream().allMatch(d -> d.download().orElse(null) == null), again.toString());
        }
        assertEquals(cdnBefore, hub.cdnRequests().size());
    }

    @Test
    void anInterruptedDownloadIntoTheCacheResumesFromItsPartialBlobAndVerifies() throws Exception {
        Path shard = dir.resolve("served").resolve(REPO).resolve(FILES.get(1));
        byte[] bytes = Files.readAllBytes(shard);
        String sha = Fixtures.sha256(shard);
        HubCache cache = new HubCache(dir.resolve("cache"), false);
        Path blobs = dir.resolve("cache/models--acme--two/blobs");
        Files.createDirectories(blobs);
        int half = bytes.length / 2;
        AtomicLong fetched = new AtomicLong();
        List<DownloadedFile> done;
        try (HttpSourceProvider provider = new HttpSourceProvider(settings, cache)) {
            // what an interrupted run leaves: the first half under the blob's partial name, and the version it holds
            Files.write(blobs.resolve(sha + ".incomplete"), java.util.Arrays.copyOf(bytes, half));
            try (RandomAccessSource s = provider.open(Location.parse("hf://" + REPO + "@" + FakeHub.COMMIT + "/"
                    + FILES.get(1)))) {
                s.size();
                Files.writeString(blobs.resolve(sha + ".incomplete.version"),
                        dev.safetensors.core.FileDownload.versionOf(s).orElseThrow());
            }
            done = downloader(provider, fetched).toCache("hf://" + REPO + "@" + FakeHub.COMMIT, cache);
        }
        DownloadedFile resumed = done.stream().filter(d -> d.source().text().endsWith(FILES.get(1))).findFirst()
                .orElseThrow();
        assertEquals(half, resumed.download().orElse(null).resumedFrom());
        assertEquals(bytes.length - half, resumed.download().orElse(null).fetched());
        assertTrue(resumed.download().orElse(null).verified());
        assertArrayEquals(bytes, Files.readAllBytes(resumed.path()));
        assertFalse(Files.exists(blobs.resolve(sha + ".incomplete")));

        // a partial blob that holds wrong bytes (under the right version's record) fails the digest, is deleted, and
        // the next run starts over
        Path other = dir.resolve("served").resolve(REPO).resolve(FILES.get(2));
        String otherSha = Fixtures.sha256(other);
        Files.delete(blobs.resolve(otherSha));
        Files.write(blobs.resolve(otherSha + ".incomplete"), new byte[] {1, 2, 3});
        Files.delete(dir.resolve("cache/models--acme--two/snapshots/" + FakeHub.COMMIT + "/" + FILES.get(2)));
        try (HttpSourceProvider provider = new HttpSourceProvider(settings, cache)) {
            try (RandomAccessSource s = provider.open(Location.parse("hf://" + REPO + "@" + FakeHub.COMMIT + "/"
                    + FILES.get(2)))) {
                s.size();
                Files.writeString(blobs.resolve(otherSha + ".incomplete.version"),
                        dev.safetensors.core.FileDownload.versionOf(s).orElseThrow());
            }
            dev.safetensors.SourceChangedException e = assertThrows(dev.safetensors.SourceChangedException.class,
                    () -> downloader(provider, new AtomicLong()).toCache("hf://" + REPO + "@" + FakeHub.COMMIT,
                            cache));
            assertEquals(ErrorCode.SOURCE_CHANGED, e.code());
            assertFalse(Files.exists(blobs.resolve(otherSha + ".incomplete")));
            downloader(provider, new AtomicLong()).toCache("hf://" + REPO + "@" + FakeHub.COMMIT, cache);
        }
        assertArrayEquals(Files.readAllBytes(other), Files.readAllBytes(blobs.resolve(otherSha)));
    }

    @Test
    void aRepositoryDownloadedToAFolderIsVerifiedFileByFile() throws Exception {
        Path out = dir.resolve("out");
        try (HttpSourceProvider provider = new HttpSourceProvider(settings)) {
            List<DownloadedFile> done = downloader(provider, new AtomicLong()).toFolder("hf://" + REPO, out);
            assertEquals(4, done.size());
            assertTrue(done.stream().allMatch(d -> d.download().orElse(null).verified()), done.toString());
        }
        for (String f : FILES) {
            assertArrayEquals(Files.readAllBytes(dir.resolve("served").resolve(REPO).resolve(f)),
                    Files.readAllBytes(out.resolve(f)), f);
        }
        try (var listing = Files.list(out)) {
            assertTrue(listing.noneMatch(p -> p.getFileName().toString().endsWith(".incomplete")));
        }
    }

    @Test
    void aCheckpointWhoseHeaderFailsIsNotDownloaded() throws Exception {
        Path served = dir.resolve("served").resolve(REPO);
        byte[] shard = Files.readAllBytes(served.resolve(FILES.get(2)));
        shard[8] = '[';
        Files.write(served.resolve(FILES.get(2)), shard);
        hub.repository(REPO, dir.resolve("served"), FILES);
        Path out = dir.resolve("out");
        int cdnBefore = hub.cdnRequests().size();
        try (HttpSourceProvider provider = new HttpSourceProvider(settings)) {
            InvalidHeaderException e = assertThrows(InvalidHeaderException.class,
                    () -> downloader(provider, new AtomicLong()).toFolder("hf://" + REPO, out));
            assertEquals(ErrorCode.HEADER_START, e.code());
        }
        assertFalse(Files.exists(out), "nothing written");
        assertTrue(hub.cdnRequests().size() - cdnBefore <= 3, "headers only: " + (hub.cdnRequests().size() - cdnBefore));
    }
}
