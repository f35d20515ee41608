package dev.safetensors.examples;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.safetensors.fixtures.FakeHub;
import dev.safetensors.fixtures.RecordedRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link InspectHub} against the test kit's {@link FakeHub}, named by {@code HF_ENDPOINT}: the repository API resolves
 * {@code main} to a commit, each file's resolve URL redirects to a CDN with genuine ranges. The token rules and the
 * Hub's corner cases are tested in {@code safetensors-http}; this test shows the example doing what its documentation
 * says, with the requests it makes. The four runs share one child JVM ({@link ExampleProcess#runAll}), each run's
 * requests taken from the Hub and the CDN before the next starts.
 */
class InspectHubTest {
    private static final String C = FakeHub.COMMIT;
    private static final FakeHub HUB = new FakeHub();
    private static final String SHARD1 = "model-00001-of-00002.safetensors";
    private static final String SHARD2 = "model-00002-of-00002.safetensors";
    private static final String PLAIN_URL = HUB.cdnBase() + "acme/single-demo/model.safetensors";
    private static final List<String> URIS = List.of("hf://acme/sharded-demo", "hf://acme/single-demo@main",
            PLAIN_URL, "hf://acme/absent");
    private static List<ExampleProcess.Result> results;
    /** The Hub's and the CDN's requests of each run, in the order of {@link #URIS}. */
    private static final List<List<String>> HUB_REQUESTS = new ArrayList<>();
    private static final List<List<String>> CDN_REQUESTS = new ArrayList<>();

    @BeforeAll
    static void publish() throws Exception {
        Path sharded = Path.of("data", "sharded");
        HUB.repository("acme/sharded-demo", Map.of(
                "model.safetensors.index.json", Files.readAllBytes(sharded.resolve("model.safetensors.index.json")),
                SHARD1, Files.readAllBytes(sharded.resolve(SHARD1)),
                SHARD2, Files.readAllBytes(sharded.resolve(SHARD2))));
        HUB.repository("acme/single-demo",
                Map.of("model.safetensors", Files.readAllBytes(Path.of("data", "sample.safetensors"))));
        HUB.clearRequests();
        results = ExampleProcess.runAll(Map.of("HF_ENDPOINT", HUB.endpoint().toString()),
                URIS.stream().map(uri -> new ExampleProcess.Invocation(InspectHub.class, uri)).toList(), i -> {
                    HUB_REQUESTS.add(HUB.hubRequests().stream().map(InspectHubTest::describe).toList());
                    CDN_REQUESTS.add(HUB.cdnRequests().stream().map(InspectHubTest::describe).toList());
                    HUB.clearRequests();
                });
    }

    @AfterAll
    static void stop() {
        HUB.close();
    }

    private static ExampleProcess.Result run(String uri) {
        return results.get(URIS.indexOf(uri));
    }

    private static ExampleProcess.Result inspect(String uri) {
        ExampleProcess.Result r = run(uri);
        assertEquals(0, r.exitCode(), r.stderr());
        return r;
    }

    private static List<String> hubRequests(String uri) {
        return HUB_REQUESTS.get(URIS.indexOf(uri));
    }

    private static String describe(LoggedRequest r) {
        String range = r.getHeader("Range");
        return r.getMethod().getName() + " " + r.getUrl() + (range == null ? "" : " " + range);
    }

    private static List<String> cdnRequests(String uri) {
        return CDN_REQUESTS.get(URIS.indexOf(uri));
    }

    private static String describe(RecordedRequest r) {
        String range = r.header("Range");
        return r.method() + " " + r.path() + (range == null ? "" : " " + range);
    }

    @Test
    void aShardedRepositoryIsReadThroughItsIndexAndCrossChecked() {
        String uri = "hf://acme/sharded-demo";
        String out = inspect(uri).stdout();
        assertTrue(out.startsWith("acme/sharded-demo at commit " + C + ": 2 file(s), 4 tensors, "), out);
        assertTrue(out.contains("hf://acme/sharded-demo@" + C + "/" + SHARD1 + ": ")
                && out.contains("hf://acme/sharded-demo@" + C + "/" + SHARD2 + ": "), out);
        String resolve = "GET /acme/sharded-demo/resolve/" + C + "/";
        List<String> hub = hubRequests(uri);
        assertEquals(List.of("GET /api/models/acme/sharded-demo/revision/main",
                resolve + "model.safetensors.index.json bytes=0-262143"), hub.subList(0, 2),
                "one listing request that resolves main to the commit, then the index at the commit: " + hub);
        // the shards' headers are read in parallel, so their two requests come in either order
        assertEquals(Set.of(resolve + SHARD1 + " bytes=0-131071", resolve + SHARD2 + " bytes=0-131071"),
                Set.copyOf(hub.subList(2, hub.size())), "then one GET per shard: " + hub);
        assertEquals(4, hub.size(), "nothing else: " + hub);
        List<String> cdn = cdnRequests(uri);
        assertEquals("GET /acme/sharded-demo/model.safetensors.index.json bytes=0-262143", cdn.get(0), cdn.toString());
        assertEquals(Set.of("GET /acme/sharded-demo/" + SHARD1 + " bytes=0-131071",
                "GET /acme/sharded-demo/" + SHARD2 + " bytes=0-131071"), Set.copyOf(cdn.subList(1, cdn.size())),
                "each redirect followed once: " + cdn);
        assertEquals(3, cdn.size(), "nothing else: " + cdn);
        assertTrue(out.contains("; 4 requests"), out);
    }

    @Test
    void aSingleFileRepositoryCostsTheListingAndOneRead() {
        String uri = "hf://acme/single-demo@main";
        String out = inspect(uri).stdout();
        assertTrue(out.startsWith("acme/single-demo at commit " + C + ": 1 file(s), 4 tensors, "), out);
        assertTrue(out.contains("hf://acme/single-demo@" + C + "/model.safetensors: 4 tensors"), out);
        assertTrue(out.contains("; 2 requests"), out);
        assertEquals(List.of("GET /acme/single-demo/model.safetensors bytes=0-131071"), cdnRequests(uri));
    }

    @Test
    void aPlainUrlIsOneRangedRequest() {
        String url = PLAIN_URL;
        String out = inspect(url).stdout();
        assertTrue(out.startsWith(url + ": 4 tensors, header 368 bytes"), out);
        assertTrue(out.contains("cost: 1 request, 482 bytes"), out);
        assertEquals(List.of("GET /acme/single-demo/model.safetensors bytes=0-131071"), cdnRequests(url));
        assertEquals(List.of(), hubRequests(url), "a plain URL does not touch the Hub");
    }

    @Test
    void aMissingRepositoryIsAClearError() {
        ExampleProcess.Result r = run("hf://acme/absent");
        assertEquals(1, r.exitCode(), r.stdout());
        // SourceNotFoundException is the NoSuchFileException of code NOT_FOUND
        assertTrue(r.stderr().contains("dev.safetensors.SourceNotFoundException: hf://acme/absent")
                && r.stderr().contains("answered 404"), r.stderr());
    }
}
