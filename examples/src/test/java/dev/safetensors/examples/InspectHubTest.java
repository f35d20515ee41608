package dev.safetensors.examples;

import org.eclipse.jetty.server.handler.ResourceHandler;
import org.eclipse.jetty.util.resource.ResourceFactory;
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
    private static LoopbackServer hub;

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

        ResourceHandler files = new ResourceHandler();
        files.setBaseResource(ResourceFactory.root().newResource(root));
        files.setDirAllowed(false);
        files.setEtags(true);
        hub = new LoopbackServer(files);
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
        assertTrue(out.startsWith("acme/sharded-demo at commit main"), out);
        assertTrue(out.contains("hf://acme/sharded-demo/model-00001-of-00002.safetensors@main: ")
                && out.contains("hf://acme/sharded-demo/model-00002-of-00002.safetensors@main: "), out);
        assertTrue(out.contains("2 shards, 4 tensors, ") && out.contains("the index agrees with every shard"), out);
        String repo = "GET /acme/sharded-demo/resolve/main/";
        assertEquals(List.of(repo + "model.safetensors bytes=0-0",
                        repo + "model.safetensors.index.json bytes=0-262143",
                        repo + "model-00001-of-00002.safetensors bytes=0-131071",
                        repo + "model-00002-of-00002.safetensors bytes=0-131071"), hub.requests(),
                "model.safetensors is probed first with one byte (absent), then the index, then one GET per shard");
    }

    @Test
    void aSingleFileRepositoryCostsTheLookupAndOneRead() throws Exception {
        String out = inspect("hf://acme/single-demo@main").stdout();
        assertTrue(out.contains("hf://acme/single-demo/model.safetensors@main: 4 tensors"), out);
        assertTrue(out.contains("cost: 1 request, 482 bytes"), out);
        assertTrue(out.contains("pinned: {repository=acme/single-demo}"),
                "Jetty's ETags are weak (W/\"...\"), which do not identify bytes, so none is pinned: " + out);
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
        assertTrue(r.stderr().contains("NoSuchFileException") && r.stderr().contains("acme/absent"), r.stderr());
    }
}
