package dev.safetensors.cli;

import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import dev.safetensors.SourceChangedException;
import dev.safetensors.SourceIdentity;
import dev.safetensors.SourceStatistics;
import dev.safetensors.core.SafetensorsClient;
import dev.safetensors.core.DownloadRequest;
import dev.safetensors.core.DownloadedFile;
import dev.safetensors.core.FileSource;
import dev.safetensors.core.ReadOptions;
import dev.safetensors.core.SafetensorsClient;
import dev.safetensors.core.SourceRegistry;
import dev.safetensors.fixtures.FakeHub;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code safetensors download --out}: a hostile index is refused before anything is fetched, a URL's query does not
 * hide a {@code .safetensors} name from the header check nor reach the output, headers are checked with the read
 * path's bound on open sources and each file is fetched pinned to the version checked, and every {@code --json}
 * failure is one JSON object on stdout.
 */
class DownloadFolderTest {
    private static final String SHARD1 = "model-00001-of-00002.safetensors";

    @TempDir
    Path dir;
    private FakeHub hub;
    private Map<String, String> env;

    @BeforeEach
    void start() {
        hub = new FakeHub();
        env = Map.of("HF_ENDPOINT", hub.endpoint().toString());
    }

    @AfterEach
    void stop() {
        hub.close();
    }

    @Test
    void anIndexNamingAnythingButASafetensorsFileIsRefusedBeforeAnythingIsFetched() throws Exception {
        Map<String, String> weights = new LinkedHashMap<>();
        weights.put("w", SHARD1);
        weights.put("x", ".x.safetensors-commit");
        byte[] journal = "delete thesis.txt\n".getBytes(StandardCharsets.UTF_8);
        hub.repository("acme/evil", Map.of("model.safetensors.index.json",
                Fixtures.index(weights, -1).getBytes(StandardCharsets.UTF_8),
                SHARD1, Fixtures.small().build(), ".x.safetensors-commit", journal));
        Path out = dir.resolve("out");
        Cli.Run run = InProcess.run(env, "download", "--json", "hf://acme/evil", "--out", out.toString());
        assertEquals(1, run.exit(), run.describe());
        List<JsonNode> json = run.jsonLines();
        assertEquals(1, json.size(), "one summary object: " + run.describe());
        assertEquals(ErrorCode.INVALID_INDEX.name(), json.get(0).get("code").asString(), run.describe());
        assertEquals("summary", json.get(0).get("kind").asString());
        assertEquals("download", json.get(0).get("command").asString());
        assertFalse(Files.exists(out.resolve(".x.safetensors-commit")));
        assertTrue(hub.cdnRequests().stream().noneMatch(r -> r.path().contains("safetensors-commit")
                || r.path().endsWith(SHARD1)), "no shard and no journal fetched: " + hub.cdnRequests());
    }

    @Test
    void aUrlWithAQueryIsHeaderCheckedByItsFileNameAndNeverPrintedWithIt() throws Exception {
        byte[] bad = Fixtures.small().build();
        bad[8] = '[';
        String url = hub.cdn().publish("/bucket/model.safetensors", bad) + "?X-Amz-Signature=SECRET0123";
        Path out = dir.resolve("out");
        Cli.Run run = InProcess.run(env, "download", "--json", url, "--out", out.toString());
        assertEquals(1, run.exit(), run.describe());
        List<JsonNode> json = run.jsonLines();
        assertEquals(1, json.size(), "one summary object: " + run.describe());
        assertEquals(ErrorCode.HEADER_START.name(), json.get(0).get("code").asString(), run.describe());
        assertFalse(run.out().contains("SECRET0123") || run.stderr().contains("SECRET0123"), run.describe());
        assertFalse(Files.exists(out.resolve("model.safetensors")));

        Cli.Run text = InProcess.run(env, "download", url, "--out", out.toString());
        assertEquals(1, text.exit(), text.describe());
        assertFalse(text.out().contains("SECRET0123") || text.stderr().contains("SECRET0123"), text.describe());
    }

    @Test
    void anOutputThatCannotBeWrittenIsWriteFailedAndOneJsonObject() throws Exception {
        Path index = Fixtures.twoShards(dir.resolve("src"));
        Path taken = Files.writeString(dir.resolve("taken"), "a file where the folder must be");
        Cli.Run run = InProcess.run("download", "--json", index.toString(), "--out", taken.toString());
        assertEquals(3, run.exit(), run.describe());
        List<JsonNode> json = run.jsonLines();
        assertEquals(1, json.size(), "one summary object: " + run.describe());
        assertEquals(ErrorCode.WRITE_FAILED.name(), json.get(0).get("code").asString(), run.describe());
        assertEquals("error", json.get(0).get("status").asString());
        assertTrue(json.get(0).has("output"), run.describe());

        Cli.Run text = InProcess.run("download", index.toString(), "--out", taken.toString());
        assertEquals(3, text.exit(), text.describe());
        assertTrue(text.stderr().contains("[WRITE_FAILED]"), text.describe());
    }

    /**
     * Local files behind a {@code counted:} scheme: every source opened and not yet closed is counted, and each
     * reports an ETag, which the test may change for a file's later opens (the object replaced on the server).
     */
    private static final class CountingStore implements RandomAccessSourceProvider {
        final AtomicInteger open = new AtomicInteger();
        final AtomicInteger mostOpen = new AtomicInteger();
        final Map<String, AtomicInteger> opens = new ConcurrentHashMap<>();
        final Set<String> changedAfterFirstOpen = ConcurrentHashMap.newKeySet();

        @Override
        public boolean supports(Location location) {
            return "counted".equals(location.scheme());
        }

        @Override
        public RandomAccessSource open(Location location) throws IOException {
            Path path = Path.of(location.requireUri().getPath());
            int n = opens.computeIfAbsent(path.getFileName().toString(), k -> new AtomicInteger()).incrementAndGet();
            String etag = n > 1 && changedAfterFirstOpen.contains(path.getFileName().toString()) ? "\"v2\"" : "\"v1\"";
            FileSource file = FileSource.open(path);
            mostOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
            return new RandomAccessSource() {
                private boolean closed;

                @Override
                public long size() throws IOException {
                    return file.size();
                }

                @Override
                public int read(long position, ByteBuffer dst) throws IOException {
                    return file.read(position, dst);
                }

                @Override
                public String name() {
                    return location.display();
                }

                @Override
                public SourceStatistics statistics() {
                    return file.statistics();
                }

                @Override
                public SourceIdentity identity() {
                    return new SourceIdentity(etag, null, null, null, null);
                }

                @Override
                public synchronized void close() throws IOException {
                    if (!closed) {
                        closed = true;
                        open.decrementAndGet();
                        file.close();
                    }
                }
            };
        }
    }

    /** An index of {@code shards} one-tensor shards in {@code folder}; returns the index. */
    private static Path manyShards(Path folder, int shards) {
        Map<String, String> weights = new LinkedHashMap<>();
        for (int i = 0; i < shards; i++) {
            String name = String.format("model-%05d-of-%05d.safetensors", i + 1, shards);
            Fixtures.write(folder, name, SafetensorsFixture.create().tensor("t" + i, "F32", 4).build());
            weights.put("t" + i, name);
        }
        return Fixtures.write(folder, "model.safetensors.index.json", Fixtures.index(weights, 16L * shards));
    }

    private static List<DownloadedFile> download(CountingStore store, int parallelism, String location, Path out)
            throws IOException {
        SafetensorsClient client = SafetensorsClient.builder()
                .registry(SourceRegistry.builder().provider(store).build())
                .readOptions(ReadOptions.builder().parallelism(parallelism).build()).build();
        return client.download(dev.safetensors.Location.parse(location), out, DownloadRequest.DEFAULT).files();
    }

    @Test
    void headersAreCheckedWithTheReadPathsBoundOnOpenSources() throws Exception {
        int shards = 12;
        Path index = manyShards(dir.resolve("src"), shards);
        CountingStore store = new CountingStore();
        Path out = dir.resolve("out");
        List<DownloadedFile> done = download(store, 2, "counted://" + index.toUri().getPath(), out);
        assertEquals(shards + 1, done.size());
        assertTrue(store.mostOpen.get() <= 2, "at most the parallelism open at once, not every shard: "
                + store.mostOpen.get());
        assertEquals(0, store.open.get(), "every source closed");
        for (DownloadedFile d : done) {
            assertArrayEquals(Files.readAllBytes(dir.resolve("src").resolve(d.path().getFileName())),
                    Files.readAllBytes(d.path()));
        }
    }

    @Test
    void aShardThatChangesBetweenItsCheckAndItsDownloadIsSourceChanged() throws Exception {
        Path index = manyShards(dir.resolve("src"), 4);
        CountingStore store = new CountingStore();
        store.changedAfterFirstOpen.add("model-00003-of-00004.safetensors");
        Path out = dir.resolve("out");
        SourceChangedException e = assertThrows(SourceChangedException.class,
                () -> download(store, 2, "counted://" + index.toUri().getPath(), out));
        assertEquals(ErrorCode.SOURCE_CHANGED, e.code());
        assertTrue(Files.exists(out.resolve("model-00002-of-00004.safetensors")), "the shards before it are done");
        assertFalse(Files.exists(out.resolve("model-00003-of-00004.safetensors")), "not the one that changed");
        assertFalse(Files.exists(out.resolve(".model-00003-of-00004.safetensors.incomplete")), "nothing fetched");
        assertEquals(0, store.open.get(), "every source closed");
    }
}
