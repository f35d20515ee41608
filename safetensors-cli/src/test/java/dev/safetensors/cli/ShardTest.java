package dev.safetensors.cli;

import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Sharded checkpoints given as a local {@code *.safetensors.index.json}: expansion, cross-checks, hostile indexes. */
class ShardTest {
    private static final String SHARD1 = "model-00001-of-00002.safetensors";
    private static final String SHARD2 = "model-00002-of-00002.safetensors";

    @TempDir
    Path dir;

    @Test
    void theSampleCheckpointExpandsIntoShardsAndOneAggregate() {
        Path index = Cli.examples().resolve("sharded/model.safetensors.index.json");
        Cli.Run run = InProcess.run("validate", "--json", index.toString()).exits(0);
        List<JsonNode> lines = run.json();
        assertEquals(3, lines.size(), run.describe());
        assertEquals("shard", lines.get(0).get("kind").asString());
        assertEquals(index.toString(), lines.get(0).get("checkpoint").asString());
        assertTrue(lines.get(0).get("source").asString().endsWith("sharded/" + SHARD1));
        assertTrue(lines.get(1).get("source").asString().endsWith("sharded/" + SHARD2));
        JsonNode aggregate = lines.get(2);
        assertEquals("checkpoint", aggregate.get("kind").asString());
        assertEquals(index.toString(), aggregate.get("source").asString());
        assertEquals("valid", aggregate.get("status").asString());
        assertEquals(2, aggregate.get("shard_count").asInt());
        assertEquals(4, aggregate.get("tensor_count").asInt());
        assertEquals(29, aggregate.get("parameters").asLong());
        assertEquals(106, aggregate.get("index_total_size").asLong(), "a number, not the metadata's string");
        assertTrue(aggregate.get("metadata").isEmpty(), aggregate.toString());
        assertEquals(106, aggregate.get("payload_bytes").asLong());
        assertEquals("{\"index\":\"pass\",\"shards\":\"pass\",\"consistency\":\"pass\"}",
                aggregate.get("checks").toString());
        assertEquals(1, aggregate.get("requests").asInt(), "the index: each shard's read is on its own line");

        Cli.Run text = InProcess.run("inspect", index.toString()).exits(0);
        assertTrue(text.out().contains(index + "  (sharded checkpoint)"), text.describe());
        assertTrue(text.out().contains("shards      2 shards"), text.describe());
        assertTrue(text.outLines().get(0).startsWith("OK          " + index.getParent().resolve(SHARD1) + ": 2"
                + " tensors"), text.describe());
    }

    @Test
    void everyInconsistencyIsReportedOnTheAggregate() {
        Path good = Fixtures.twoShards(dir.resolve("good"));
        InProcess.run("validate", good.toString()).exits(0);

        Map<String, String> wrongShard = new LinkedHashMap<>(Fixtures.twoShardMap());
        wrongShard.put("a.bias", SHARD2);
        Map<String, String> unmapped = new LinkedHashMap<>(Fixtures.twoShardMap());
        unmapped.remove("a.bias");
        Map<String, String> ghost = new LinkedHashMap<>(Fixtures.twoShardMap());
        ghost.put("c.weight", SHARD2);

        Path wrong = index("wrong", Fixtures.index(wrongShard, 72));
        Path notMapped = index("unmapped", Fixtures.index(unmapped, -1));
        Path missingTensor = index("ghost", Fixtures.index(ghost, 72));
        Path total = index("total", Fixtures.index(Fixtures.twoShardMap(), 73));
        Path twice = dir.resolve("twice/model.safetensors.index.json");
        Fixtures.twoShards(twice.getParent());
        Fixtures.write(twice.getParent(), SHARD2, SafetensorsFixture.create().tensor("a.bias", "F32", 4)
                .tensor("b.weight", "F16", 4).build());

        Cli.Run run = InProcess.run("validate", "--json", wrong.toString(), notMapped.toString(), missingTensor.toString(),
                total.toString(), twice.toString()).exits(1);
        List<JsonNode> aggregates = run.json().stream().filter(n -> n.get("kind").asString().equals("checkpoint"))
                .toList();
        assertEquals(5, aggregates.size(), run.describe());
        String[] expected = {
            "is in shard " + SHARD1 + " but the index maps it to " + SHARD2,
            "tensor \"a.bias\" of shard " + SHARD1 + " is not in the index",
            "tensor \"c.weight\" is mapped to " + SHARD2 + " but that shard does not hold it",
            "metadata.total_size is 73 but the shards' tensors hold 72 bytes",
            "tensor \"a.bias\" is in two shards",
        };
        for (int i = 0; i < expected.length; i++) {
            JsonNode a = aggregates.get(i);
            assertEquals("invalid", a.get("status").asString(), a.toString());
            assertEquals("INVALID_INDEX", a.get("code").asString(), a.toString());
            assertTrue(a.get("message").asString().contains(expected[i]), expected[i] + "\n" + a);
            assertEquals("fail", a.get("checks").get("consistency").asString(), a.toString());
            assertEquals("pass", a.get("checks").get("shards").asString(), a.toString());
        }
    }

    @Test
    void hostileShardNamesAreRefusedBeforeAnythingIsRead() {
        for (String name : new String[] {"../secret.safetensors", "/etc/passwd", "sub/x.safetensors",
            "https://evil.example/x.safetensors", "..", "a\\b.safetensors"}) {
            Path index = index("hostile" + Math.abs(name.hashCode()), Fixtures.index(Map.of("w", name), -1));
            Cli.Run run = InProcess.run("validate", index.toString()).exits(1);
            assertEquals(1, run.outLines().size(), run.describe());
            String line = run.outLines().get(0);
            assertTrue(line.startsWith("INVALID     " + index + ": "), run.describe());
            assertTrue(line.contains("is not a plain file name beside the index"), run.describe());
            assertTrue(line.endsWith("[INVALID_INDEX]"), run.describe());
        }
    }

    @Test
    void malformedIndexesAreInvalid() {
        Path duplicate = index("dup", "{\"weight_map\": {\"w\": \"" + SHARD1 + "\", \"w\": \"" + SHARD1 + "\"}}");
        Path notJson = index("notjson", "{\"weight_map\": {\"w\": \"" + SHARD1 + "\",}}");
        Path noMap = index("nomap", "{\"metadata\": {}}");
        Cli.Run run = InProcess.run("validate", duplicate.toString(), notJson.toString(), noMap.toString()).exits(1);
        List<String> lines = run.outLines();
        assertEquals(3, lines.size(), run.describe());
        assertTrue(lines.get(0).contains("mapped twice"), run.describe());
        assertTrue(lines.stream().allMatch(l -> l.startsWith("INVALID") && l.endsWith("[INVALID_INDEX]")),
                run.describe());
    }

    @Test
    void aBrokenOrMissingShardFailsTheCheckpoint() {
        Path invalid = Fixtures.twoShards(dir.resolve("invalid"));
        Fixtures.write(invalid.getParent(), SHARD2, "<html>gone</html>");
        Path missing = Fixtures.twoShards(dir.resolve("missing"));
        assertTrue(missing.getParent().resolve(SHARD2).toFile().delete());

        Cli.Run bad = InProcess.run("validate", invalid.toString()).exits(1);
        assertEquals(3, bad.outLines().size(), bad.describe());
        assertTrue(bad.outLines().get(1).endsWith("[NOT_SAFETENSORS]"), bad.describe());
        assertTrue(bad.outLines().get(2).startsWith("INVALID     " + invalid + ": shard "), bad.describe());

        Cli.Run gone = InProcess.run("validate", "--json", missing.toString()).exits(3);
        JsonNode aggregate = gone.json().get(2);
        assertEquals("error", aggregate.get("status").asString(), gone.describe());
        assertEquals("NOT_FOUND", aggregate.get("code").asString(), gone.describe());
        assertEquals("fail", aggregate.get("checks").get("shards").asString(), gone.describe());
    }

    private Path index(String name, String json) {
        Path folder = dir.resolve(name);
        Fixtures.twoShards(folder);
        return Fixtures.write(folder, "model.safetensors.index.json", json);
    }
}
