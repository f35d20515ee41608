package dev.safetensors.cli;

import dev.safetensors.fixtures.SafetensorsFixture;
import dev.safetensors.fixtures.FakeHub;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Regression (issue 22): {@code inspect hf://...} reads a repository under the run's policy, not a fixed strict one:
 * a header with leading whitespace (which the official crate accepts) is refused by default and accepted with
 * {@code --policy official}, on the fake Hub, in process (the launcher adds nothing to this).
 */
class HubPolicyTest {
    @TempDir
    static Path root;
    private static FakeHub hub;
    private static Map<String, String> env;

    @BeforeAll
    static void publish() throws Exception {
        String header = "  {\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
        Fixtures.write(root, "acme/spaced/model.safetensors", SafetensorsFixture.file(header, 8));
        hub = new FakeHub();
        hub.repository("acme/spaced", root, List.of("model.safetensors"));
        env = Map.of("HF_ENDPOINT", hub.endpoint().toString());
    }

    @AfterAll
    static void stop() throws Exception {
        hub.close();
    }

    @Test
    void aRepositoryIsReadUnderTheRunsPolicy() {
        Cli.Run strict = InProcess.run(env, "inspect", "--json", "hf://acme/spaced").exits(1);
        assertEquals("HEADER_START", strict.json().get(0).get("code").asString(), strict.describe());

        Cli.Run official = InProcess.run(env, "inspect", "--json", "--policy", "official", "hf://acme/spaced").exits(0);
        JsonNode m = official.json().get(0);
        assertEquals("valid", m.get("status").asString(), official.describe());
        assertEquals(1, m.get("tensor_count").asInt(), official.describe());
    }
}
