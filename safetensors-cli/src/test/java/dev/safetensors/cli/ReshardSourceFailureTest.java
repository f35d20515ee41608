package dev.safetensors.cli;

import dev.safetensors.fixtures.SafetensorsFixture;
import dev.safetensors.fixtures.FakeHub;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A source that fails while {@code reshard} is writing (the header was read, the tensor's bytes are refused) is
 * reported against that source, in text and in the JSON {@code source} field, never against the {@code --out}
 * folder, and the folder the run would have created is not left behind (issue 23, item 6).
 */
class ReshardSourceFailureTest {
    @TempDir
    static Path root;
    private static FakeHub hub;
    private static Map<String, String> env;

    @TempDir
    Path parent;

    @BeforeAll
    static void publish() throws Exception {
        // 256 KiB of tensor: more than the first read, so the bytes take a request of their own
        Fixtures.write(root, "acme/big/model.safetensors",
                SafetensorsFixture.create().tensor("w", "F32", 65536).build());
        hub = new FakeHub();
        hub.repository("acme/big", root, List.of("model.safetensors"));
        hub.withdrawAfterFirstRead("acme/big", "model.safetensors",
                Files.readAllBytes(root.resolve("acme/big/model.safetensors")));
        env = Map.of("HF_ENDPOINT", hub.endpoint().toString());
    }

    @AfterAll
    static void stop() throws Exception {
        hub.close();
    }

    @Test
    void aSourceThatFailsMidWriteIsNamedAndNoOutputIsLeft() {
        Path out = parent.resolve("new-folder");
        Cli.Run run = InProcess.run(env, "reshard", "--json", "hf://acme/big", "--out", out.toString(),
                "--max-shard-size", "1MB").exits(3);
        JsonNode failure = run.summary();
        assertEquals("reshard", failure.get("command").asString(), run.describe());
        assertEquals("error", failure.get("status").asString(), run.describe());
        assertEquals("NOT_FOUND", failure.get("code").asString(), run.describe());
        String source = failure.get("source").asString();
        assertTrue(source.startsWith("hf://acme/big") && source.endsWith("/model.safetensors"),
                "the failing source, not the output: " + run.describe());
        assertNull(failure.get("output"), "no output file failed: " + run.describe());
        assertFalse(Files.exists(out), "the --out folder the run would have made is not left behind");
    }
}
