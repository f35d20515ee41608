package dev.safetensors.cli;

import dev.safetensors.core.SafetensorsFile;
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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code reshard} from a Hub repository run in-process ({@link InProcess}): a fake Hub ({@code HF_ENDPOINT}, WireMock,
 * redirecting to a Jetty CDN with genuine ranges) on loopback. From S3: {@link ReshardS3Test}.
 */
class ReshardHubTest {
    @TempDir
    static Path root;
    private static FakeHub hub;
    private static Map<String, String> env;

    @TempDir
    Path out;

    @BeforeAll
    static void publish() throws Exception {
        Fixtures.twoShards(root.resolve("acme/sharded"));
        Fixtures.write(root, "acme/single/model.safetensors", Fixtures.small().build());
        hub = new FakeHub();
        hub.repository("acme/sharded", root, List.of("model.safetensors.index.json", "model-00001-of-00002.safetensors",
                "model-00002-of-00002.safetensors"));
        hub.repository("acme/single", root, List.of("model.safetensors"));
        env = Map.of("HF_ENDPOINT", hub.endpoint().toString());
    }

    @AfterAll
    static void stop() throws Exception {
        hub.close();
    }

    @Test
    void aShardedHubRepositoryIsMergedIntoOneVerifiedFile() throws Exception {
        Cli.Run run = InProcess.run(env, "reshard", "--json", "hf://acme/sharded", "--out", out.toString(), "--single")
                .exits(0);
        List<JsonNode> lines = run.jsonLines();
        assertEquals(2, lines.size(), run.describe());
        JsonNode summary = run.summary();
        assertEquals("hf://acme/sharded", summary.get("source").asString());
        assertEquals("valid", summary.get("status").asString());
        assertEquals(3, summary.get("tensor_count").asInt());
        Path merged = out.resolve("model.safetensors");
        try (SafetensorsFile f = SafetensorsFile.open(merged)) {
            for (JsonNode t : lines.get(0).get("tensors")) {
                assertTrue(t.get("verified").asBoolean(), run.describe());
                assertEquals(ReshardTest.sha256(f.readBytes(t.get("name").asString())), t.get("sha256").asString());
            }
        }
        Path shards = root.resolve("acme/sharded");
        for (String shard : List.of("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors")) {
            try (SafetensorsFile s = SafetensorsFile.open(shards.resolve(shard));
                 SafetensorsFile m = SafetensorsFile.open(merged)) {
                for (var t : s.header().tensors()) {
                    assertEquals(s.readBytes(t.name()), m.readBytes(t.name()), t.name());
                }
            }
        }
    }

    @Test
    void aSingleFileHubRepositoryIsSplit() throws Exception {
        Cli.Run run = InProcess.run(env, "reshard", "hf://acme/single", "--out", out.toString(), "--max-shard-size", "20B")
                .exits(0);
        assertTrue(run.out().contains("every output tensor's SHA-256 equals its input's"), run.describe());
        Cli.Run validate = InProcess.run("validate", out.resolve("model.safetensors.index.json").toString()).exits(0);
        assertTrue(validate.out().contains("sharded checkpoint"), validate.describe());
        ReshardTest.assertSameTensorsAcross(root.resolve("acme/single/model.safetensors"), out);
    }

    @Test
    void aPipelineIsRefusedAndOneOfItsComponentsIsResharded() throws Exception {
        // a diffusers pipeline of two components: a reshard writes one checkpoint, so one component is named
        Fixtures.write(root, "acme/pipe/text_encoder/model.safetensors", Fixtures.small().build());
        Fixtures.write(root, "acme/pipe/vae/diffusion_pytorch_model.safetensors", Fixtures.small().build());
        hub.repository("acme/pipe", root, List.of("model_index.json", "text_encoder/model.safetensors",
                "vae/diffusion_pytorch_model.safetensors"));
        Cli.Run whole = InProcess.run(env, "reshard", "--json", "hf://acme/pipe", "--out", out.toString());
        JsonNode failure = whole.summary();
        assertEquals("INVALID_SOURCE", failure.get("code").asString(), whole.describe());
        String message = failure.get("message").asString();
        assertTrue(message.startsWith("hf://acme/pipe holds 2 checkpoints: name one"), whole.describe());
        assertEquals(3, whole.exit(), whole.describe());
        try (var written = java.nio.file.Files.list(out)) {
            assertEquals(0, written.count(), "nothing written");
        }
        InProcess.run(env, "reshard", "hf://acme/pipe/vae", "--out", out.toString(), "--single").exits(0);
        ReshardTest.assertSameTensors(root.resolve("acme/pipe/vae/diffusion_pytorch_model.safetensors"),
                out.resolve("model.safetensors"));
    }
}
