package dev.safetensors.cli.commands;

import dev.safetensors.ErrorCode;
import dev.safetensors.Limits;
import dev.safetensors.Location;
import dev.safetensors.core.DownloadRequest;
import dev.safetensors.core.DownloadResult;
import dev.safetensors.core.DownloadedFile;
import dev.safetensors.core.SafetensorsClient;
import dev.safetensors.core.SourceRegistry;
import dev.safetensors.fixtures.FakeHub;
import dev.safetensors.fixtures.LoopbackS3;
import dev.safetensors.fixtures.RecordedRequest;
import dev.safetensors.http.HttpSettings;
import dev.safetensors.http.HttpSourceProvider;
import dev.safetensors.http.HubCache;
import dev.safetensors.http.HubRepository;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.safetensors.cli.InProcess;
import dev.safetensors.cli.Cli;
import dev.safetensors.cli.Fixtures;

/**
 * {@code safetensors download} as {@code snapshot_download}: {@code --include}/{@code --exclude} over every file of a
 * fake Hub repository, a prefix of s3proxy with its layout, an invalid file at a URL with a query refused before any
 * payload byte is served, and per-file request counts that add up, with the listing's, to what the Hub and its CDN
 * answered.
 */
class DownloadSelectTest {
    private static final String REPO = "acme/select";
    private static final String SHARD1 = "model-00001-of-00002.safetensors";
    private static final String SHARD2 = "model-00002-of-00002.safetensors";
    private static final String INDEX = "model.safetensors.index.json";

    @TempDir
    Path dir;
    private FakeHub hub;
    private Map<String, String> env;
    private final Map<String, byte[]> files = new LinkedHashMap<>();

    @BeforeEach
    void start() throws IOException {
        Path served = dir.resolve("served");
        Fixtures.twoShards(served);
        for (String f : List.of(SHARD1, SHARD2, INDEX)) {
            files.put(f, Files.readAllBytes(served.resolve(f)));
        }
        files.put("config.json", "{\"model_type\":\"two\"}".getBytes(StandardCharsets.UTF_8));
        files.put("tokenizer.json", "{\"version\":\"1.0\"}".getBytes(StandardCharsets.UTF_8));
        files.put("README.md", "# select".getBytes(StandardCharsets.UTF_8));
        files.put("onnx/config.json", "{\"onnx\":true}".getBytes(StandardCharsets.UTF_8));
        hub = new FakeHub();
        hub.repository(REPO, files);
        env = Map.of("HF_ENDPOINT", hub.endpoint().toString());
    }

    @AfterEach
    void stop() {
        hub.close();
    }

    /** The files under a folder, by relative path, the download's own dot-files (version records) left out. */
    private static Set<String> written(Path out) throws IOException {
        Set<String> names = new TreeSet<>();
        if (!Files.exists(out)) {
            return names;
        }
        try (Stream<Path> walk = Files.walk(out)) {
            walk.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().startsWith("."))
                    .forEach(p -> names.add(out.relativize(p).toString().replace('\\', '/')));
        }
        return names;
    }

    @Test
    void includeJsonFetchesExactlyTheJsonFilesOfTheRepository() throws Exception {
        Path out = dir.resolve("D");
        Cli.Run run = InProcess.run(env, "download", "--json", "hf://" + REPO, "--include", "*.json", "--out",
                out.toString());
        assertEquals(0, run.exit(), run.describe());
        assertEquals(Set.of("config.json", "tokenizer.json", INDEX, "onnx/config.json"), written(out),
                run.describe());
        for (String f : written(out)) {
            assertArrayEquals(files.get(f), Files.readAllBytes(out.resolve(f)), f);
        }
        Set<String> sources = new TreeSet<>();
        for (JsonNode line : run.json()) {
            assertEquals("download", line.get("kind").asString());
            assertEquals("valid", line.get("status").asString());
            assertEquals("downloaded", line.get("outcome").asString());
            assertEquals(line.get("size").asLong(), Files.size(Path.of(line.get("output").asString())));
            assertTrue(line.get("requests").asLong() >= 1, line.toString());
            sources.add(line.get("source").asString());
        }
        assertEquals(4, sources.size(), run.describe());
        assertTrue(hub.cdnRequests().stream().noneMatch(r -> r.path().endsWith(Location.FILE_SUFFIX)
                || r.path().endsWith("README.md")), "no shard and no README fetched: " + hub.cdnRequests());
    }

    @Test
    void excludeDropsAShardFromTheCheckpointFilesAndTheGlobsRepeat() throws Exception {
        Path out = dir.resolve("D");
        Cli.Run run = InProcess.run(env, "download", "hf://" + REPO, "--exclude", "*-00002-*", "--exclude",
                "onnx*", "--out", out.toString());
        assertEquals(0, run.exit(), run.describe());
        assertEquals(Set.of(SHARD1, INDEX, "config.json", "onnx/config.json"), written(out),
                "the checkpoint's files at every level but the excluded shard (onnx* matches no file name)");

        Path md = dir.resolve("M");
        Cli.Run readme = InProcess.run(env, "download", "hf://" + REPO, "--include", "*.md", "--include",
                "tokenizer.*", "--out", md.toString());
        assertEquals(0, readme.exit(), readme.describe());
        assertEquals(Set.of("README.md", "tokenizer.json"), written(md));

        Cli.Run bad = InProcess.run(env, "download", "hf://" + REPO, "--include", "[", "--out", md.toString());
        assertEquals(2, bad.exit(), bad.describe());
    }

    @Test
    void aPrefixOfAnS3BucketDownloadsItsCheckpointWithItsLayout() throws Exception {
        Path bucket = dir.resolve("bucket");
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
            Fixtures.write(bucket, "ckpt/" + f.getKey(), f.getValue());
        }
        Fixtures.write(bucket, "elsewhere/x.safetensors", Fixtures.small().build());
        LoopbackS3 s3 = LoopbackS3.shared();
        s3.putFiles("downloads", bucket);
        Path out = dir.resolve("D");
        Cli.Run run = InProcess.run(InProcess.S3_ENV, "download", "--json", "--s3-endpoint", s3.endpoint().toString(),
                "--s3-path-style", "s3://downloads/ckpt/", "--out", out.toString());
        assertEquals(0, run.exit(), run.describe());
        assertEquals(Set.of(SHARD1, SHARD2, INDEX, "config.json", "onnx/config.json"), written(out), run.describe());
        for (String f : written(out)) {
            assertArrayEquals(files.get(f), Files.readAllBytes(out.resolve(f)), f);
        }
        assertEquals(5, run.json().size(), run.describe());

        Path json = dir.resolve("J");
        Cli.Run some = InProcess.run(InProcess.S3_ENV, "download", "--s3-endpoint", s3.endpoint().toString(),
                "--s3-path-style", "s3://downloads/ckpt", "--include", "*.json", "--exclude", "config.json",
                "--out", json.toString());
        assertEquals(0, some.exit(), some.describe());
        assertEquals(Set.of(INDEX, "tokenizer.json"), written(json), "a prefix written without its slash too");
    }

    @Test
    void anInvalidFileAtAUrlWithAQueryExitsOneBeforeAnyPayloadByteIsServed() throws Exception {
        byte[] bad = new byte[8 << 20];
        byte[] head = Fixtures.small().build();
        System.arraycopy(head, 0, bad, 0, head.length);
        bad[8] = '[';
        String url = hub.cdn().publish("/bucket/big.safetensors", bad) + "?X-Amz-Signature=SECRET0123";
        Path out = dir.resolve("out");
        Cli.Run run = InProcess.run(env, "download", "--json", url, "--out", out.toString());
        assertEquals(1, run.exit(), run.describe());
        assertEquals(ErrorCode.HEADER_START.name(), run.summary().get("code").asString(), run.describe());
        assertFalse(run.out().contains("SECRET0123") || run.stderr().contains("SECRET0123"), run.describe());
        assertFalse(Files.exists(out));
        long served = 0;
        for (RecordedRequest r : hub.cdnRequests()) {
            if (!r.path().endsWith("big.safetensors") || !r.method().equals("GET")) {
                continue;
            }
            String range = r.header("Range");
            assertTrue(range != null && range.startsWith("bytes=0-"), "the header probe only: " + r);
            long end = Long.parseLong(range.substring("bytes=0-".length()));
            served += Math.min(end + 1, bad.length);
        }
        assertTrue(served <= Limits.DEFAULT_PREFETCH_BYTES, "at most the first read: " + served + " bytes");
    }

    private SafetensorsClient client(HttpSourceProvider provider) {
        return SafetensorsClient.builder().registry(SourceRegistry.builder().provider(provider).build()).build();
    }

    /** The Hub's and the CDN's requests for one path of the repository. */
    private long wire(String path) {
        long onHub = hub.hubRequests().stream().filter(r -> r.getUrl().contains("/resolve/")
                && r.getUrl().split("\\?")[0].endsWith("/" + path)).count();
        long onCdn = hub.cdnRequests().stream().filter(r -> r.path().equals("/" + REPO + "/" + path)).count();
        return onHub + onCdn;
    }

    @Test
    void globsSelectWhatGoesIntoTheCacheAndASecondRunFindsItAllWithoutARequest() throws Exception {
        HttpSettings settings = HttpSettings.builder().hubEndpoint(hub.endpoint())
                .connectTimeout(Duration.ofSeconds(2)).requestTimeout(Duration.ofSeconds(10)).build();
        HubCache cache = new HubCache(dir.resolve("cache"), false);
        Location at = Location.parse("hf://" + REPO);
        DownloadRequest json = DownloadRequest.builder()
                .include(List.of(dev.safetensors.core.NameGlob.compile("*.json"))).build();
        try (HttpSourceProvider provider = new HttpSourceProvider(settings)) {
            DownloadResult first = client(provider).download(at, HubCacheTarget.of(at, cache,
                    new HubRepository(settings)), json);
            assertEquals(4, first.files().size());
            assertTrue(first.files().stream().allMatch(f -> f.download().orElseThrow().verified()),
                    "each blob checked against the Hub's SHA-256");
        }
        Path snapshot = dir.resolve("cache/models--acme--select/snapshots/" + FakeHub.COMMIT);
        assertEquals(Set.of("config.json", "tokenizer.json", INDEX, "onnx/config.json"), linked(snapshot));
        for (String f : linked(snapshot)) {
            assertArrayEquals(files.get(f), Files.readAllBytes(snapshot.resolve(f)), f);
        }
        hub.clearRequests();
        try (HttpSourceProvider provider = new HttpSourceProvider(settings)) {
            DownloadResult again = client(provider).download(at, HubCacheTarget.of(at, cache,
                    new HubRepository(settings)), json);
            assertTrue(again.files().stream().allMatch(f -> f.present() && f.cost().requests() == 0),
                    again.toString());
        }
        assertTrue(hub.cdnRequests().isEmpty(), "nothing fetched again: " + hub.cdnRequests());
    }

    /** The snapshot's entries, by relative path. */
    private static Set<String> linked(Path snapshot) throws IOException {
        Set<String> names = new TreeSet<>();
        try (Stream<Path> walk = Files.walk(snapshot)) {
            walk.filter(p -> Files.isSymbolicLink(p) || Files.isRegularFile(p))
                    .forEach(p -> names.add(snapshot.relativize(p).toString().replace('\\', '/')));
        }
        return names;
    }

    @Test
    void eachFileReportsTheRequestsItCostAndTheyAddUpToWhatTheHubAnswered() throws Exception {
        HttpSettings settings = HttpSettings.builder().hubEndpoint(hub.endpoint())
                .connectTimeout(Duration.ofSeconds(2)).requestTimeout(Duration.ofSeconds(10)).build();
        for (boolean cache : List.of(false, true)) {
            hub.clearRequests();
            DownloadResult r;
            try (HttpSourceProvider provider = new HttpSourceProvider(settings)) {
                Location at = Location.parse("hf://" + REPO);
                r = cache ? client(provider).download(at, HubCacheTarget.of(at, new HubCache(dir.resolve("cache"),
                        false), new HubRepository(settings)), DownloadRequest.DEFAULT)
                        : client(provider).download(at, dir.resolve("folder"), DownloadRequest.DEFAULT);
            }
            long answered = hub.hubRequests().size() + hub.cdnRequests().size();
            assertEquals(answered, r.cost().exchanges(), "every exchange counted once (cache " + cache + ")");
            assertEquals(4, r.files().size());
            long indexRead = 0;
            for (DownloadedFile f : r.files()) {
                String path = f.source().fileName();
                if (path.equals(INDEX)) {
                    // the index was read once to find the shards: that read is the locating cost's
                    indexRead = wire(path) - f.cost().exchanges();
                    assertTrue(indexRead >= 1, "the index read that found the shards");
                } else {
                    assertEquals(wire(path), f.cost().exchanges(), "the exchanges of " + path + " (cache " + cache
                            + ")");
                }
            }
            long api = hub.hubRequests().stream().filter(q -> q.getUrl().startsWith("/api/")).count();
            assertEquals(api + indexRead, r.locatingCost().exchanges(), "the repository listing and the index read");
        }
    }
}
