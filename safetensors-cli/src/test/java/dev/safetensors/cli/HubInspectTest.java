package dev.safetensors.cli;

import dev.safetensors.fixtures.SafetensorsFixture;
import dev.safetensors.fixtures.FakeHub;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code inspect hf://...}: the one-call metadata of every checkpoint a Hub repository holds, on the fake Hub
 * (WireMock playing the Hub's API and resolve endpoint, redirecting to a Jetty CDN), with the requests counted.
 */
class HubInspectTest {
    @TempDir
    static Path root;
    private static FakeHub hub;
    private static Map<String, String> env;

    @BeforeAll
    static void publish() throws Exception {
        // three shards of one tensor each: s0 F32 [4], s1 F32 [4], s2 F16 [8]
        Map<String, String> three = new LinkedHashMap<>();
        for (int i = 1; i <= 3; i++) {
            String shard = "model-0000" + i + "-of-00003.safetensors";
            Fixtures.write(root, "acme/three/" + shard, SafetensorsFixture.create()
                    .tensor("s" + i, i == 3 ? "F16" : "F32", i == 3 ? 8 : 4).build());
            three.put("s" + i, shard);
        }
        Fixtures.write(root, "acme/three/model.safetensors.index.json", Fixtures.index(three, 16 + 16 + 16));
        hub = new FakeHub();
        hub.repository("acme/three", root, List.of("model.safetensors.index.json", "model-00001-of-00003.safetensors",
                "model-00002-of-00003.safetensors", "model-00003-of-00003.safetensors"));

        // a diffusers pipeline: a sharded transformer, a text encoder with its config, a single-file VAE
        Fixtures.twoShards(root.resolve("acme/sd/transformer"));
        Fixtures.write(root, "acme/sd/transformer/diffusion_pytorch_model.safetensors.index.json",
                Fixtures.index(Fixtures.twoShardMap(), 72));
        Fixtures.write(root, "acme/sd/text_encoder/model.safetensors", Fixtures.small().build());
        Fixtures.write(root, "acme/sd/text_encoder/config.json", "{\"model_type\":\"clip_text_model\"}");
        Fixtures.write(root, "acme/sd/vae/diffusion_pytorch_model.safetensors", SafetensorsFixture.create()
                .tensor("decoder.conv.weight", "F32", 2, 2).build());
        hub.repository("acme/sd", root, List.of("model_index.json", "scheduler/scheduler_config.json",
                "text_encoder/config.json", "text_encoder/model.safetensors",
                "transformer/diffusion_pytorch_model.safetensors.index.json",
                "transformer/model-00001-of-00002.safetensors", "transformer/model-00002-of-00002.safetensors",
                "vae/diffusion_pytorch_model.safetensors"));

        // GPTQ 4-bit: qweight I32 [8, 32] packs 8 x 256 = 2,048 weights; qzeros and scales are bookkeeping
        Fixtures.write(root, "acme/gptq/model.safetensors", SafetensorsFixture.create()
                .tensor("layer.qweight", "I32", 8, 32).tensor("layer.qzeros", "I32", 1, 4)
                .tensor("layer.scales", "F16", 1, 32).tensor("layer.bias", "F16", 32).build());
        Fixtures.write(root, "acme/gptq/config.json",
                "{\"quantization_config\":{\"quant_method\":\"gptq\",\"bits\":4}}");
        hub.repository("acme/gptq", root, List.of("config.json", "model.safetensors"));

        // a header with leading whitespace, which the official crate accepts and the strict policy does not
        Fixtures.write(root, "acme/spaced/model.safetensors", SafetensorsFixture.file(
                "  {\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8));
        hub.repository("acme/spaced", root, List.of("model.safetensors"));
        // two shards, the second of which is not a safetensors file at all
        Map<String, String> bad = new LinkedHashMap<>();
        for (int i = 1; i <= 2; i++) {
            String shard = "model-0000" + i + "-of-00002.safetensors";
            Fixtures.write(root, "acme/badshard/" + shard, i == 2 ? "this is not a safetensors file"
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII)
                    : SafetensorsFixture.create().tensor("s" + i, "F32", 4).build());
            bad.put("s" + i, shard);
        }
        Fixtures.write(root, "acme/badshard/model.safetensors.index.json", Fixtures.index(bad, 32));
        hub.repository("acme/badshard", root, List.of("model.safetensors.index.json",
                "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"));
        env = Map.of("HF_ENDPOINT", hub.endpoint().toString());
    }

    @AfterAll
    static void stop() throws Exception {
        hub.close();
    }

    @Test
    void aThreeShardRepositoryCostsTheListingTheIndexAndOneReadPerShard() {
        Cli.Run run = InProcess.run(env, "inspect", "--json", "hf://acme/three").exits(0);
        List<JsonNode> lines = run.json();
        assertEquals(3 + 1, lines.size(), "one line per shard, then the checkpoint: " + run.describe());
        assertEquals("hf://acme/three@" + FakeHub.COMMIT + "/model-00001-of-00003.safetensors",
                lines.get(0).get("source").asString(), "shards pinned to the commit");
        assertEquals("shard", lines.get(0).get("kind").asString());
        JsonNode m = lines.get(3);
        assertEquals("checkpoint", m.get("kind").asString());
        assertEquals("hf://acme/three", m.get("source").asString());
        assertEquals(FakeHub.COMMIT, m.get("attributes").get("revision").asString());
        assertEquals(3, m.get("shard_count").asInt());
        assertEquals(3, m.get("tensor_count").asInt());
        assertEquals(16, m.get("parameters").asLong());
        assertEquals(8, m.get("dtypes").get("F32").get("parameters").asLong());
        assertEquals(16, m.get("dtypes").get("F16").get("bytes").asLong());
        assertEquals("pass", m.get("checks").get("consistency").asString());
        assertTrue(m.get("parameter_counting").asString().startsWith("stored elements"), run.describe());
        assertEquals(1 + 1 + 3, m.get("requests").asInt(), "the listing, the index, one header read per shard");
        assertEquals(1 + 4 * 2, m.get("exchanges").asInt(), "every read but the listing is redirected to the CDN");
    }

    @Test
    void aDiffusersRepositoryReportsEachComponentMainModuleFirst() {
        Cli.Run run = InProcess.run(env, "inspect", "--json", "hf://acme/sd").exits(0);
        List<JsonNode> lines = run.json().stream().filter(l -> l.get("kind").asString().equals("checkpoint"))
                .toList();
        assertEquals(List.of("hf://acme/sd/transformer", "hf://acme/sd/text_encoder", "hf://acme/sd/vae"),
                lines.stream().map(l -> l.get("source").asString()).toList(), run.describe());
        assertEquals(1 + 1 + 2, lines.get(0).get("requests").asInt(), "the listing, the index, two shard headers");
        assertEquals(1 + 1, lines.get(1).get("requests").asInt(), "a header and config.json");
        assertEquals(1, lines.get(2).get("requests").asInt(), "a header");
        assertEquals("stored elements: config.json declares no quantization_config",
                lines.get(1).get("parameter_counting").asString());
        assertEquals(7, lines.stream().mapToInt(l -> l.get("requests").asInt()).sum(), "seven requests in all");

        Cli.Run one = InProcess.run(env, "inspect", "--path", "vae", "hf://acme/sd@main").exits(0);
        assertTrue(one.out().startsWith("hf://acme/sd@main/vae  (checkpoint)"), one.describe());
        assertTrue(one.out().contains("cost        2 read requests"), "the listing and the header\n" + one.describe());
        Cli.Run folder = InProcess.run(env, "inspect", "--json", "hf://acme/sd/vae").exits(0);
        assertEquals(1, folder.json().size(), folder.describe());
    }

    @Test
    void aFolderWithATrailingSlashIsTheFolder() {
        for (String folder : List.of("hf://acme/sd@main/vae/", "hf://acme/sd/vae/")) {
            Cli.Run run = InProcess.run(env, "inspect", "--json", folder).exits(0);
            List<JsonNode> lines = run.json();
            assertEquals(1, lines.size(), run.describe());
            assertTrue(lines.get(0).get("source").asString().endsWith("/vae"), run.describe());
            InProcess.run(env, "validate", folder).exits(0);
        }
    }

    @Test
    void aQuantizedRepositoryCountsParametersFromItsConfigAndSaysSo() {
        Cli.Run run = InProcess.run(env, "inspect", "--json", "hf://acme/gptq").exits(0);
        JsonNode m = run.json().get(0);
        assertEquals("derived from config.json quantization_config (gptq, 4 bits)",
                m.get("parameter_counting").asString());
        assertEquals(2048, m.get("dtypes").get("I32").get("parameters").asLong());
        assertEquals(32, m.get("dtypes").get("F16").get("parameters").asLong());
        assertEquals(1 + 1 + 1, m.get("requests").asInt(), "the listing, the header, config.json");

        Cli.Run text = InProcess.run(env, "inspect", "hf://acme/gptq").exits(0);
        assertTrue(text.out().contains("parameters  derived from config.json quantization_config (gptq, 4 bits)"),
                text.describe());
        assertTrue(text.out().contains("revision    " + FakeHub.COMMIT), text.describe());
    }

    /** Regression (issue 22): a repository is read under the run's policy, not a fixed strict one. */
    @Test
    void aRepositoryWhoseShardHeaderIsBadReportsThatShardAndFailsTheCheckpoint() {
        Cli.Run run = InProcess.run(env, "inspect", "--json", "hf://acme/badshard").exits(1);
        List<JsonNode> lines = run.json();
        assertEquals(2 + 1, lines.size(), "each shard's own verdict, then the checkpoint's: " + run.describe());
        assertEquals("valid", lines.get(0).get("status").asString(), run.describe());
        assertEquals("pass", lines.get(0).get("checks").get("header").asString(), run.describe());
        assertEquals("invalid", lines.get(1).get("status").asString(), "the bad header was read and judged");
        assertEquals("HEADER_TOO_LARGE", lines.get(1).get("code").asString(), run.describe());
        JsonNode m = lines.get(2);
        assertEquals("checkpoint", m.get("kind").asString());
        assertEquals("invalid", m.get("status").asString(), run.describe());
        assertEquals("fail", m.get("checks").get("shards").asString(), run.describe());
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

    @Test
    void aMissingFolderOrRepositoryIsNotFound() {
        Cli.Run run = InProcess.run(env, "inspect", "--path", "unet", "hf://acme/sd").exits(3);
        assertTrue(run.errLines().get(0).endsWith("[NOT_FOUND]"), run.describe());
        assertTrue(run.errLines().get(0).contains("transformer, text_encoder, vae"), run.describe());
        Cli.Run absent = InProcess.run(env, "inspect", "--json", "hf://acme/absent").exits(3);
        assertEquals("NOT_FOUND", absent.json().get(0).get("code").asString(), absent.describe());
    }

    @Test
    void theTrailingRevisionOfEarlierVersionsIsRefusedWithTheNewForm() {
        Cli.Run run = InProcess.run(env, "inspect", "hf://acme/gptq/model.safetensors@main").exits(3);
        assertTrue(run.errLines().get(0).contains("hf://acme/gptq@main/model.safetensors"), run.describe());
        assertTrue(run.errLines().get(0).endsWith("[INVALID_SOURCE]"), run.describe());
    }
}
