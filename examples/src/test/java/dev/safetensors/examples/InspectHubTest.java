package dev.safetensors.examples;

import dev.safetensors.fixtures.FolderServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link InspectHub} against a stand-in for the Hub: Jetty's static file server (genuine {@code Range} support and
 * ETags) serving {@code OWNER/REPO/resolve/REVISION/FILE} from a folder, named by {@code HF_ENDPOINT}. The redirects,
 * commit pinning and token rules of the real Hub are tested in {@code safetensors-http}; this test shows the example
 * doing what its documentation says, with the requests it makes.
 */
class InspectHubTest {
    @TempDir
    static Path root;
    private static FolderServer hub;

    @BeforeAll
    static void start() throws Exception {
        Path sharded = Files.createDirectories(root.resolve("acme/sharded-demo/resolve/main"));
        try (var files = Files.list(Path.of("data", "sharded"))) {
            for (Path f : files.toList()) {
                Files.copy(f, sharded.resolve(f.getFileName()));
            }
        }
        Path single = Files.createDirectories(root.resolve("acme/single-demo/resolve/main"));
        Files.copy(Path.of("data", "sample.safetensors"), single.resolve("model.safetensors"));
        // the Hub's repository listing, as a static file: no "sha", so the revision stays "main"
        listing("acme/sharded-demo", "model.safetensors.index.json", "model-00001-of-00002.safetensors",
                "model-00002-of-00002.safetensors");
        listing("acme/single-demo", "model.safetensors");

        hub = new FolderServer(root);
    }

    private static void listing(String repo, String... files) throws Exception {
        StringBuilder json = new StringBuilder("{\"siblings\":[");
        for (int i = 0; i < files.length; i++) {
            json.append(i == 0 ? "" : ",").append("{\"rfilename\":\"").append(files[i]).append("\"}");
        }
        Path at = root.resolve("api/models/" + repo + "/revision/main");
        Files.createDirectories(at.getParent());
        Files.writeString(at, json.append("]}"));
    }

    @AfterAll
    static void stop() throws Exception {
        hub.close();
    }

    @BeforeEach
    void forget() {
        hub.clearRequests();
    }

    private static ExampleProcess.Result inspect(String uri) throws Exception {
        ExampleProcess.Result r = ExampleProcess.run(InspectHub.class,
                Map.of("HF_ENDPOINT", "http://" + hub.hostAndPort()), uri);
        assertEquals(0, r.exitCode(), r.stderr());
        return r;
    }

    @Test
    void aShardedRepositoryIsReadThroughItsIndexAndCrossChecked() throws Exception {
        String out = inspect("hf://acme/sharded-demo").stdout();
        assertTrue(out.startsWith("acme/sharded-demo at commit main: 2 file(s), 4 tensors, "), out);
        assertTrue(out.contains("hf://acme/sharded-demo@main/model-00001-of-00002.safetensors: ")
                && out.contains("hf://acme/sharded-demo@main/model-00002-of-00002.safetensors: "), out);
        String repo = "GET /acme/sharded-demo/resolve/main/";
        List<String> requests = hub.requests().stream().map(String::strip).toList();
        assertEquals(List.of("GET /api/models/acme/sharded-demo/revision/main",
                        repo + "model.safetensors.index.json bytes=0-262143"), requests.subList(0, 2),
                "one listing request, then the index: " + requests);
        // the shards' headers are read in parallel, so their two requests come in either order
        assertEquals(java.util.Set.of(repo + "model-00001-of-00002.safetensors bytes=0-131071",
                        repo + "model-00002-of-00002.safetensors bytes=0-131071"),
                java.util.Set.copyOf(requests.subList(2, requests.size())),
                "then one GET per shard: " + requests);
        assertEquals(4, requests.size(), "nothing else: " + requests);
        assertTrue(out.contains("; 4 requests"), out);
    }

    @Test
    void aSingleFileRepositoryCostsTheListingAndOneRead() throws Exception {
        String out = inspect("hf://acme/single-demo@main").stdout();
        assertTrue(out.startsWith("acme/single-demo at commit main: 1 file(s), 4 tensors, "), out);
        assertTrue(out.contains("hf://acme/single-demo@main/model.safetensors: 4 tensors"), out);
        assertTrue(out.contains("; 2 requests"), out);
    }

    @Test
    void aPlainUrlIsOneRangedRequest() throws Exception {
        String url = "http://" + hub.hostAndPort() + "/acme/single-demo/resolve/main/model.safetensors";
        String out = inspect(url).stdout();
        assertTrue(out.startsWith(url + ": 4 tensors, header 368 bytes"), out);
        assertTrue(out.contains("cost: 1 request, 482 bytes"), out);
        assertEquals(List.of("GET /acme/single-demo/resolve/main/model.safetensors bytes=0-131071"), hub.requests());
    }

    @Test
    void aMissingRepositoryIsAClearError() throws Exception {
        ExampleProcess.Result r = ExampleProcess.run(InspectHub.class,
                Map.of("HF_ENDPOINT", "http://" + hub.hostAndPort()), "hf://acme/absent");
        assertEquals(1, r.exitCode(), r.stdout());
        // SourceNotFoundException is the NoSuchFileException of code NOT_FOUND
        assertTrue(r.stderr().contains("dev.safetensors.SourceNotFoundException: hf://acme/absent")
                && r.stderr().contains("answered 404"), r.stderr());
    }
}
