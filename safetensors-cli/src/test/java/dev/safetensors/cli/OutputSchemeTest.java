package dev.safetensors.cli;

import dev.safetensors.fixtures.FakeHub;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An output location with a scheme never becomes a local folder named {@code s3:} in the current folder:
 * {@code reshard} writes to a store whose backend writes it and refuses any other scheme, or a malformed prefix,
 * before anything is read; so does {@code download}, which mirrors into stores.
 */
class OutputSchemeTest {
    /** What a location such as {@code s3://bkt/out/} would become, taken for a path relative to the current folder. */
    private static final List<Path> TAKEN_FOR_PATHS = List.of(Path.of("s3:"), Path.of("gs:"), Path.of("hf:"),
            Path.of("https:"), Path.of("ftp:"));

    @TempDir
    Path dir;

    @AfterEach
    void removeWhatAFailedRunMade() throws IOException {
        for (Path p : TAKEN_FOR_PATHS) {
            if (Files.exists(p)) {
                try (Stream<Path> walk = Files.walk(p)) {
                    for (Path q : walk.sorted(Comparator.reverseOrder()).toList()) {
                        Files.delete(q);
                    }
                }
            }
        }
    }

    private static void nothingTakenForAPath() {
        for (Path p : TAKEN_FOR_PATHS) {
            assertFalse(Files.exists(p), p.toAbsolutePath() + " was created");
        }
    }

    @Test
    void reshardRefusesAnOutputNoBackendWritesBeforeReadingTheSource() {
        Path source = Fixtures.write(dir, "a.safetensors", Fixtures.small().build());
        for (String out : List.of("hf://acme/tiny", "https://host/out/", "ftp://host/out/")) {
            Cli.Run run = InProcess.run("reshard", source.toString(), "--out", out).exits(3);
            assertTrue(run.stderr().contains("no storage backend writes '"), run.describe());
            assertTrue(run.stderr().contains("[UNSUPPORTED_SCHEME]"), run.describe());
        }
        for (String out : List.of("s3://bkt/out/?versionId=1", "s3:///out/", "s3://bkt out/")) {
            Cli.Run run = InProcess.run("reshard", source.toString(), "--out", out).exits(3);
            assertTrue(run.stderr().contains("[INVALID_SOURCE]"), run.describe());
        }
        // a source that does not exist: refused for its output first, so nothing was read
        Cli.Run missing = InProcess.run("reshard", "--json", dir.resolve("missing.safetensors").toString(), "--out",
                "hf://acme/tiny").exits(3);
        List<JsonNode> json = missing.jsonLines();
        assertEquals(1, json.size(), missing.describe());
        assertEquals("UNSUPPORTED_SCHEME", json.get(0).get("code").asString(), missing.describe());
        nothingTakenForAPath();
    }

    @Test
    void downloadRefusesAnOutputNoBackendWritesBeforeFetchingAnything() throws Exception {
        Path served = dir.resolve("served");
        Fixtures.write(served, "acme/tiny/model.safetensors", Fixtures.small().build());
        try (FakeHub hub = new FakeHub()) {
            hub.repository("acme/tiny", served, List.of("model.safetensors"));
            Map<String, String> env = Map.of("HF_ENDPOINT", hub.endpoint().toString());
            for (String out : List.of("https://host/mirror/", "hf://acme/copy")) {
                Cli.Run run = InProcess.run(env, "download", "hf://acme/tiny", "--out", out).exits(3);
                assertTrue(run.stderr().contains("[UNSUPPORTED_SCHEME]"), run.describe());
                assertTrue(run.stderr().contains("no storage backend writes '"), run.describe());
            }
            Cli.Run query = InProcess.run(env, "download", "hf://acme/tiny", "--out", "s3://bkt/m/?x=1").exits(3);
            assertTrue(query.stderr().contains("[INVALID_SOURCE]"), query.describe());
            assertEquals(List.of(), hub.hubRequests(), "nothing was asked of the Hub");
            assertEquals(List.of(), hub.cdnRequests(), "nothing was fetched");
            Path local = Fixtures.write(dir, "b.safetensors", Fixtures.small().build());
            InProcess.run("download", local.toString(), "-o", "ftp://bkt/mirror").exits(3);
        }
        nothingTakenForAPath();
    }
}
