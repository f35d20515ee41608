package dev.safetensors.examples;

import dev.safetensors.fixtures.GcsStandIn;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link InspectGcs}, which names no GCS class, run as a user runs it: the backend is found through
 * {@code ServiceLoader} on the class path, the Google client is pointed at a loopback stand-in by
 * {@code STORAGE_EMULATOR_HOST}, and the requests it makes are recorded. The four runs share one child JVM
 * ({@link ExampleProcess#runAll}), each run's requests taken from the stand-in before the next starts.
 */
class InspectGcsTest {
    private static final long GENERATION = 1712345678901234L;
    private static final List<String> URIS = List.of("gs://models/sample.safetensors",
            "gs://models/runs/7/model.safetensors#" + (GENERATION + 1),
            "gs://models/sample.safetensors#" + (GENERATION - 1), "gs://models/absent.safetensors");
    private static GcsStandIn gcs;
    private static List<ExampleProcess.Result> results;
    /** The requests of each run, in the order of {@link #URIS}. */
    private static final List<List<String>> REQUESTS = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        gcs = new GcsStandIn();
        byte[] sample = Files.readAllBytes(Path.of("data", "sample.safetensors"));
        gcs.put("models", "sample.safetensors", sample, GENERATION);
        gcs.put("models", "runs/7/model.safetensors", sample, GENERATION + 1);
        gcs.forgetRequests();
        results = ExampleProcess.runAll(Map.of("STORAGE_EMULATOR_HOST", gcs.hostAndPort()),
                URIS.stream().map(uri -> new ExampleProcess.Invocation(InspectGcs.class, uri)).toList(), i -> {
                    REQUESTS.add(List.copyOf(gcs.requests()));
                    gcs.forgetRequests();
                });
    }

    @AfterAll
    static void stop() throws Exception {
        gcs.close();
    }

    private static ExampleProcess.Result inspect(String uri) {
        return results.get(URIS.indexOf(uri));
    }

    private static List<String> requestsOf(String uri) {
        return REQUESTS.get(URIS.indexOf(uri));
    }

    @Test
    void aHeaderThatFitsThePrefixCostsOneMediaGetAndNoMetadataRequest() {
        ExampleProcess.Result r = inspect("gs://models/sample.safetensors");
        assertEquals(0, r.exitCode(), r.stderr());
        assertTrue(r.stdout().startsWith("gs://models/sample.safetensors: 4 tensors, header 368 bytes"), r.stdout());
        assertTrue(r.stdout().contains("cost: 1 request, 482 bytes"), r.stdout());
        assertTrue(r.stdout().contains("pinned: {") && r.stdout().contains("version=" + GENERATION + "}"), r.stdout());
        assertEquals(List.of("GET /download/storage/v1/b/models/o/sample.safetensors?alt=media Range: bytes=0-131071"),
                requestsOf("gs://models/sample.safetensors"));
    }

    @Test
    void aSlashInTheObjectNameIsSentEncodedAndAGenerationIsPinnedFromTheStart() {
        String uri = "gs://models/runs/7/model.safetensors#" + (GENERATION + 1);
        ExampleProcess.Result r = inspect(uri);
        assertEquals(0, r.exitCode(), r.stderr());
        assertTrue(r.stdout().contains("4 tensors"), r.stdout());
        List<String> requests = requestsOf(uri);
        assertEquals(1, requests.size(), requests.toString());
        String request = requests.get(0);
        assertTrue(request.startsWith("GET /download/storage/v1/b/models/o/runs%2F7%2Fmodel.safetensors?alt=media"),
                request);
        assertTrue(request.contains("generation=" + (GENERATION + 1))
                && request.contains("ifGenerationMatch=" + (GENERATION + 1)), request);
    }

    @Test
    void anotherGenerationThanTheOneAskedIsRefused() {
        ExampleProcess.Result r = inspect("gs://models/sample.safetensors#" + (GENERATION - 1));
        assertEquals(1, r.exitCode(), r.stdout());
        assertTrue(r.stderr().contains("gs://models/sample.safetensors"), r.stderr());
    }

    @Test
    void aMissingObjectIsNamedInTheError() {
        ExampleProcess.Result r = inspect("gs://models/absent.safetensors");
        assertEquals(1, r.exitCode(), r.stdout());
        assertTrue(r.stderr().contains("SourceNotFoundException: gs://models/absent.safetensors"),
                r.stderr());
    }
}
