package dev.safetensors.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code sign --hash}: a folder signed with blake3 verifies (the verifier takes the hash from the manifest) and its
 * bundle names blake3 as the reference does; blake3 with {@code --shards} and an unknown hash are usage errors.
 */
class SignHashTypeTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    @Test
    void blake3SignsWholeFilesAndVerifies() throws Exception {
        Path model = Files.createDirectories(dir.resolve("my-model"));
        Fixtures.twoShards(model);
        TestKeys keys = TestKeys.write(dir, "key");
        Path sig = dir.resolve("my-model.sig");
        String[] sign = {"sign", model.toString(), "--key", keys.privateKey().toString(), "--public-key",
                keys.publicKey().toString(), "--out", sig.toString(), "--hash", "blake3"};
        InProcess.run(sign).exits(0);
        JsonNode statement = JSON.readTree(Base64.getDecoder().decode(JSON.readTree(Files.readString(sig))
                .get("dsseEnvelope").get("payload").asString()));
        JsonNode predicate = statement.get("predicate");
        assertEquals("blake3", predicate.get("serialization").get("hash_type").asString(), statement.toString());
        for (JsonNode resource : predicate.get("resources")) {
            assertEquals("blake3", resource.get("algorithm").asString());
            assertEquals(64, resource.get("digest").asString().length(), "32 bytes in hex: " + resource);
        }
        InProcess.run("verify", model.toString(), "--signature", sig.toString(), "--public-key",
                keys.publicKey().toString()).exits(0);

        Cli.Run shards = InProcess.run(append(sign, "--shards", "1MB")).exits(2);
        assertTrue(shards.stderr().contains("--hash blake3 hashes whole files"), shards.describe());
        InProcess.run("sign", model.toString(), "--key", keys.privateKey().toString(), "--out", sig.toString(),
                "--hash", "md5").exits(2);
    }

    private static String[] append(String[] line, String... more) {
        String[] all = Arrays.copyOf(line, line.length + more.length);
        System.arraycopy(more, 0, all, line.length, more.length);
        return all;
    }
}
