package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShardIndexTest {
    private static final String INDEX = "{\"metadata\":{\"total_size\":40,\"format\":\"pt\"},\"weight_map\":"
            + "{\"a\":\"model-00001-of-00002.safetensors\",\"b\":\"model-00002-of-00002.safetensors\","
            + "\"c\":\"model-00001-of-00002.safetensors\"}}";

    private static ShardIndex parse(String json) throws InvalidHeaderException {
        return ShardIndex.parse("model.safetensors.index.json", json.getBytes(StandardCharsets.UTF_8));
    }

    private static void refused(String json) {
        InvalidHeaderException e = assertThrows(InvalidHeaderException.class, () -> parse(json));
        assertEquals(ErrorCode.INVALID_INDEX, e.code(), e.getMessage());
    }

    private static SafetensorsHeader header(SafetensorsFixture f) throws Exception {
        return Safetensors.readHeader("shard", f.build(), dev.safetensors.Limits.STRICT);
    }

    @Test
    void parsesTheWeightMapShardsAndTotalSize() throws Exception {
        ShardIndex index = parse(INDEX);
        assertEquals(List.of("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"), index.shards());
        assertEquals("model-00002-of-00002.safetensors", index.weightMap().get("b"));
        assertEquals(40, index.totalSize().orElseThrow());
        assertTrue(parse("{\"weight_map\":{}}").totalSize().isEmpty());
    }

    @ParameterizedTest
    @ValueSource(strings = {"../secret.safetensors", "/etc/passwd", "a/b.safetensors", "a\\\\b.safetensors", "..", ".",
            "", "https://evil.example/x.safetensors", "C:x.safetensors", "a\\u0000b"})
    void shardNamesMustBePlainFileNames(String shard) {
        refused("{\"weight_map\":{\"a\":\"" + shard + "\"}}");
    }

    @ParameterizedTest
    @ValueSource(strings = {".x.safetensors-commit", ".model.safetensors.incomplete", "model.bin", "config.json",
            ".safetensors", "model.safetensors.index.json", "model.SAFETENSORS", "model.safetensors "})
    void shardNamesMustBeSafetensorsFileNames(String shard) {
        // a hostile index naming a commit journal or a partial download would make a download fetch it unchecked
        refused("{\"weight_map\":{\"a\":\"model-00001-of-00002.safetensors\",\"b\":\"" + shard + "\"}}");
    }

    @ParameterizedTest
    @ValueSource(strings = {"[]", "{}", "{\"weight_map\":[]}", "{\"weight_map\":{\"a\":1}}",
            "{\"weight_map\":{\"a\":\"x\",\"a\":\"y\"}}", "{\"weight_map\":{},\"weight_map\":{}}",
            "{\"metadata\":{\"total_size\":-1},\"weight_map\":{}}", "{\"metadata\":{\"total_size\":1.5},\"weight_map\":{}}",
            "{\"metadata\":{\"total_size\":1,\"total_size\":1},\"weight_map\":{}}", "{\"weight_map\":{}} x",
            "{\"weight_map\":{},}", "{\"metadata\":[],\"weight_map\":{}}"})
    void malformedIndexesAreRefused(String json) {
        refused(json);
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"weight_map\":{},\"note\":\"\\ud800\"}", "{\"weight_map\":{},\"x\":[{\"\\udc00\":1}]}",
            "{\"metadata\":{\"format\":\"\\ud83d\\u0041\"},\"weight_map\":{}}"})
    void loneSurrogatesAreRefusedAlsoInIgnoredValues(String json) {
        // found by the fuzz module's reference checker: ignored values were skipped without decoding their strings
        refused(json);
    }

    @Test
    void manyDistinctShardsCostLinearTime() {
        // found in review, measured: each new shard name was looked up in a list, so 80,000 shards took 11 s and
        // an index near the 64 MiB limit (some 3 million shards) hours
        StringBuilder json = new StringBuilder("{\"weight_map\":{");
        for (int i = 0; i < 400_000; i++) {
            json.append(i == 0 ? "" : ",").append("\"t").append(i).append("\":\"s").append(i)
                    .append(".safetensors\"");
        }
        json.append("}}");
        // far past the default cap on shards per index, which is raised here to time the parser alone
        dev.safetensors.CheckpointLimits uncapped = dev.safetensors.CheckpointLimits.DEFAULT.withMaxShardsPerIndex(Integer.MAX_VALUE);
        ShardIndex index = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> ShardIndex.parse("i",
                json.toString().getBytes(StandardCharsets.UTF_8), uncapped));
        assertEquals(400_000, index.shards().size());
    }

    @Test
    void aHugeIndexIsRefusedBeforeParsing() {
        InvalidHeaderException e = assertThrows(InvalidHeaderException.class,
                () -> ShardIndex.parse("i", new byte[dev.safetensors.CheckpointLimits.DEFAULT_MAX_INDEX_BYTES + 1]));
        assertTrue(e.getMessage().contains("limit"), e.getMessage());
    }

    @Test
    void crossCheckAcceptsAConsistentCheckpoint() throws Exception {
        ShardIndex index = parse(INDEX);
        long total = index.verifyAgainst(Map.of(
                "model-00001-of-00002.safetensors", header(SafetensorsFixture.create().tensor("a", "F32", 4)
                        .tensor("c", "F32", 2)),
                "model-00002-of-00002.safetensors", header(SafetensorsFixture.create().tensor("b", "F32", 4))));
        assertEquals(40, total);
    }

    @Test
    void crossCheckFindsEveryKindOfInconsistency() throws Exception {
        ShardIndex index = parse(INDEX);
        SafetensorsHeader first = header(SafetensorsFixture.create().tensor("a", "F32", 4).tensor("c", "F32", 2));
        SafetensorsHeader second = header(SafetensorsFixture.create().tensor("b", "F32", 4));
        String s1 = "model-00001-of-00002.safetensors";
        String s2 = "model-00002-of-00002.safetensors";
        expectInconsistent(index, Map.of(s1, first), "no header");
        expectInconsistent(index, Map.of(s1, first, s2, second, "extra.safetensors", second), "not named");
        expectInconsistent(index, Map.of(s1, first, s2, header(SafetensorsFixture.create().tensor("b", "F32", 4)
                .tensor("a", "F32", 4))), "two shards");
        expectInconsistent(index, Map.of(s1, first, s2, header(SafetensorsFixture.create().tensor("b", "F32", 4)
                .tensor("z", "F32", 1))), "not in the index");
        expectInconsistent(index, Map.of(s1, header(SafetensorsFixture.create().tensor("a", "F32", 4)), s2, second),
                "does not hold");
        expectInconsistent(index, Map.of(s1, header(SafetensorsFixture.create().tensor("a", "F32", 4)
                .tensor("c", "F32", 3)), s2, second), "total_size");
        expectInconsistent(parse("{\"weight_map\":{\"a\":\"" + s2 + "\",\"b\":\"" + s2 + "\",\"c\":\"" + s1 + "\"}}"),
                Map.of(s1, first, s2, second), "maps it to");
    }

    @Test
    void crossCheckRefusesShardsWhoseBytesSumPast2To63() throws Exception {
        // found by the fuzzer: the sum wrapped around and verifyAgainst returned a negative total
        // nine shards of the largest U8 tensor rule 20 allows, (2^63-1)/8 bytes each, hold more than 2^63-1 bytes
        Map<String, SafetensorsHeader> shards = new java.util.HashMap<>();
        StringBuilder map = new StringBuilder();
        for (int i = 0; i < 9; i++) {
            shards.put("s" + i + ".safetensors", hugeShard("s" + i, "t" + i, Long.MAX_VALUE / 8));
            map.append(i == 0 ? "" : ",").append("\"t").append(i).append("\":\"s").append(i)
                    .append(".safetensors\"");
        }
        expectInconsistent(parse("{\"weight_map\":{" + map + "}}"), shards, "2^63-1");
    }

    /** A validated header of a file far larger than memory: one U8 tensor of {@code length} bytes. */
    private static SafetensorsHeader hugeShard(String shard, String tensor, long length) throws Exception {
        byte[] json = ("{\"" + tensor + "\":{\"dtype\":\"U8\",\"shape\":[" + length + "],\"data_offsets\":[0,"
                + length + "]}}").getBytes(StandardCharsets.UTF_8);
        return Safetensors.parseHeader(shard, json, 8 + json.length + length, dev.safetensors.Limits.STRICT);
    }

    private static void expectInconsistent(ShardIndex index, Map<String, SafetensorsHeader> shards, String words) {
        InvalidHeaderException e = assertThrows(InvalidHeaderException.class, () -> index.verifyAgainst(shards));
        assertEquals(ErrorCode.INVALID_INDEX, e.code());
        assertTrue(e.getMessage().contains(words), e.getMessage());
    }
}
