package dev.safetensors.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.List;

/** The seed corpus of the index parser target: valid indexes, then one index per clause of the index contract. */
final class IndexSeeds {
    /**
     * @param name  the seed's file name
     * @param bytes the index file
     * @param valid whether the index is well formed
     */
    record Seed(String name, byte[] bytes, boolean valid) {
    }

    private static final String MAP = "\"weight_map\":{\"a\":\"model-00001-of-00002.safetensors\","
            + "\"b\":\"model-00002-of-00002.safetensors\"}";

    private IndexSeeds() {
    }

    static List<Seed> all() {
        return List.of(
                seed("minimal", "{\"weight_map\":{}}", true),
                seed("typical", "{\"metadata\":{\"total_size\":1024}," + MAP + "}", true),
                seed("extra-keys", " {\"metadata\":{\"format\":\"pt\",\"x\":[1,{\"y\":null}]}," + MAP
                        + ",\"other\":{\"k\":1,\"k\":2}}\n", true),
                seed("escaped-names", "{\"weight\\u005fmap\":{\"\\u00e9\":\"s\\u00e9.safetensors\"}}", true),
                seed("no-weight-map", "{\"metadata\":{}}", false),
                seed("weight-map-array", "{\"weight_map\":[]}", false),
                seed("root-array", "[" + "{" + MAP + "}]", false),
                seed("duplicate-root-key", "{" + MAP + "," + MAP + "}", false),
                seed("duplicate-tensor", "{\"weight_map\":{\"a\":\"s\",\"\\u0061\":\"s\"}}", false),
                seed("duplicate-metadata-key", "{\"metadata\":{\"x\":1,\"x\":1}," + MAP + "}", false),
                seed("shard-not-a-string", "{\"weight_map\":{\"a\":1}}", false),
                seed("shard-path", "{\"weight_map\":{\"a\":\"../model.safetensors\"}}", false),
                seed("shard-dotdot", "{\"weight_map\":{\"a\":\"..\"}}", false),
                seed("shard-url", "{\"weight_map\":{\"a\":\"https:x\"}}", false),
                seed("shard-backslash", "{\"weight_map\":{\"a\":\"c\\\\x\"}}", false),
                seed("shard-control", "{\"weight_map\":{\"a\":\"x\\u007f\"}}", false),
                seed("shard-empty", "{\"weight_map\":{\"a\":\"\"}}", false),
                seed("shard-commit-journal", "{\"weight_map\":{\"a\":\".x.safetensors-commit\"}}", false),
                seed("shard-bare-suffix", "{\"weight_map\":{\"a\":\".safetensors\"}}", false),
                seed("total-size-negative", "{\"metadata\":{\"total_size\":-1}," + MAP + "}", false),
                seed("total-size-fraction", "{\"metadata\":{\"total_size\":1.0}," + MAP + "}", false),
                seed("total-size-too-large", "{\"metadata\":{\"total_size\":9223372036854775808}," + MAP + "}", false),
                seed("metadata-not-object", "{\"metadata\":1," + MAP + "}", false),
                seed("trailing-junk", "{" + MAP + "} x", false),
                seed("lone-surrogate-ignored", "{" + MAP + ",\"note\":\"\\ud800\"}", false),
                seed("too-deep", "{" + MAP + ",\"x\":" + "[".repeat(64) + "]".repeat(64) + "}", false));
    }

    private static Seed seed(String name, String json, boolean valid) {
        return new Seed(name, json.getBytes(StandardCharsets.UTF_8), valid);
    }
}
