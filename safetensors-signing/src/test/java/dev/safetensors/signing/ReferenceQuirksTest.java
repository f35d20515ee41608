package dev.safetensors.signing;

import dev.safetensors.ErrorCode;
import dev.safetensors.signing.SigningException.Reason;
import dev.safetensors.signing.internal.BundleCodec;
import dev.safetensors.signing.internal.Dsse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.security.Signature;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Statements shaped as the Python reference implementation writes them, signed here: what a verifier must accept
 * from it (shard_size as 8.0, sha256-sharded-N algorithms, its path-component order, "." for a single file, the
 * deprecated v0.1 predicate), and a subject digest that is recomputed in listed order, never re-sorted.
 */
class ReferenceQuirksTest {
    private static final HexFormat HEX = HexFormat.of();

    @TempDir
    Path dir;

    private static String sha256(byte[] bytes) throws Exception {
        return HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    private static String subject(List<String> digests) throws Exception {
        MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
        for (String digest : digests) {
            sha256.update(HEX.parseHex(digest));
        }
        return HEX.formatHex(sha256.digest());
    }

    private static byte[] bundle(KeyPair keys, String statement) throws Exception {
        byte[] payload = statement.getBytes(StandardCharsets.UTF_8);
        Signature s = Signature.getInstance("SHA256withECDSA");
        s.initSign(keys.getPrivate());
        s.update(Dsse.pae(BundleCodec.IN_TOTO_PAYLOAD_TYPE, payload));
        return BundleCodec.write(payload, s.sign(), Optional.of(SigningKeys.hint(keys.getPublic())), List.of());
    }

    /** Signed as version 0.2 of the reference signed: its mistaken encoding, not DSSE's. */
    private static byte[] legacyBundle(KeyPair keys, String statement) throws Exception {
        byte[] payload = statement.getBytes(StandardCharsets.UTF_8);
        Signature s = Signature.getInstance("SHA256withECDSA");
        s.initSign(keys.getPrivate());
        s.update(Dsse.legacyPae(BundleCodec.IN_TOTO_PAYLOAD_TYPE, payload));
        return BundleCodec.write(payload, s.sign(), Optional.of(SigningKeys.hint(keys.getPublic())), List.of());
    }

    private static String statement(String name, String subjectDigest, String serialization, List<String[]> resources) {
        List<String> items = new ArrayList<>();
        for (String[] r : resources) {
            items.add("{\"algorithm\": \"" + r[1] + "\", \"digest\": \"" + r[2] + "\", \"name\": \"" + r[0] + "\"}");
        }
        return "{\n  \"_type\": \"https://in-toto.io/Statement/v1\",\n  \"subject\": [{\"name\": \"" + name
                + "\", \"digest\": {\"sha256\": \"" + subjectDigest + "\"}}],\n"
                + "  \"predicateType\": \"https://model_signing/signature/v1.0\",\n"
                + "  \"predicate\": {\"serialization\": " + serialization + ", \"resources\": ["
                + String.join(", ", items) + "]}\n}";
    }

    @Test
    void shardsInReferenceOrderWithAFloatShardSizeAndShardedAlgorithmsVerify() throws Exception {
        Path model = dir.resolve("model");
        byte[] nested = TestSupport.bytes(20, 7);
        byte[] dotted = TestSupport.bytes(6, 9);
        TestSupport.write(model, "a/b", nested);
        TestSupport.write(model, "a.b", dotted);
        TestSupport.write(model, "empty", new byte[0]);
        TestSupport.write(model, "model.sig", "stands for the bundle the reference wrote into the model");
        // by path component, then numeric offset: neither a/b:16:20 before a/b:8:16 nor a.b first, as strings sort
        List<String[]> resources = List.of(
                new String[] {"a/b:0:8", "sha256-sharded-8", sha256(Arrays.copyOfRange(nested, 0, 8))},
                new String[] {"a/b:8:16", "sha256-sharded-8", sha256(Arrays.copyOfRange(nested, 8, 16))},
                new String[] {"a/b:16:20", "sha256-sharded-8", sha256(Arrays.copyOfRange(nested, 16, 20))},
                new String[] {"a.b:0:6", "sha256-sharded-8", sha256(dotted)});
        List<String> listed = resources.stream().map(r -> r[2]).toList();
        List<String> sorted = resources.stream().sorted((x, y) -> x[0].compareTo(y[0])).map(r -> r[2]).toList();
        assertNotEquals(subject(listed), subject(sorted));
        String serialization = "{\"allow_symlinks\": false, \"hash_type\": \"sha256\", \"ignore_paths\": "
                + "[\".gitignore\", \"model.sig\", \".git\"], \"method\": \"shards\", \"shard_size\": 8.0}";
        KeyPair keys = TestSupport.ecKeys("secp256r1");
        ModelVerifier verifier = ModelVerifier.withPublicKey(keys.getPublic());

        byte[] bundle = bundle(keys, statement("model", subject(listed), serialization, resources));
        VerificationResult result = verifier.verify(ModelFiles.of(model), bundle, List.of());
        assertTrue(result.matches(), result.toString());
        assertEquals(8, result.manifest().serialization().shardSize());

        byte[] resorted = bundle(keys, statement("model", subject(sorted), serialization, resources));
        SigningException e = assertThrows(SigningException.class, () -> verifier.verifySignature(resorted));
        assertEquals(Reason.INCONSISTENT_MANIFEST, e.reason());
    }

    @Test
    void aSingleFileModelWhoseResourceIsNamedDotVerifies() throws Exception {
        byte[] content = TestSupport.bytes(100, 1);
        Path file = TestSupport.write(dir, "signme-1", content);
        String digest = sha256(content);
        String serialization = "{\"allow_symlinks\": false, \"hash_type\": \"sha256\", \"method\": \"files\"}";
        KeyPair keys = TestSupport.ecKeys("secp256r1");
        byte[] bundle = bundle(keys, statement("signme-1", subject(List.of(digest)), serialization,
                List.<String[]>of(new String[] {".", "sha256", digest})));
        assertTrue(ModelVerifier.withPublicKey(keys.getPublic()).verify(ModelFiles.of(file), bundle, List.of())
                .matches());
    }

    @Test
    void theDeprecatedDigestsPredicateVerifies() throws Exception {
        Path model = dir.resolve("model");
        TestSupport.write(model, "signme-1", "one");
        TestSupport.write(model, "signme-2", "two");
        String statement = "{\"_type\": \"https://in-toto.io/Statement/v1\", \"subject\": ["
                + "{\"name\": \"signme-1\", \"digest\": {\"sha256\": \"" + sha256("one".getBytes(StandardCharsets.UTF_8))
                + "\"}, \"annotations\": {\"actual_hash_algorithm\": \"file-sha256\"}},"
                + "{\"name\": \"signme-2\", \"digest\": {\"sha256\": \"" + sha256("two".getBytes(StandardCharsets.UTF_8))
                + "\"}}], \"predicateType\": \"https://model_signing/Digests/v0.1\","
                + " \"predicate\": {\"unused\": \"Unused, just passed due to API requirements\"}}";
        KeyPair keys = TestSupport.ecKeys("secp256r1");
        ModelVerifier verifier = ModelVerifier.withPublicKey(keys.getPublic());
        assertTrue(verifier.verify(ModelFiles.of(model), bundle(keys, statement), List.of()).matches());
        assertTrue(verifier.verify(ModelFiles.of(model), legacyBundle(keys, statement), List.of()).matches());
        TestSupport.write(model, "signme-2", "TWO");
        assertEquals(List.of("signme-2"), verifier.verify(ModelFiles.of(model), bundle(keys, statement), List.of())
                .mismatched());
    }

    @Test
    void anUnknownAlgorithmOrABadShardNameIsAnInvalidStatement() throws Exception {
        Path model = dir.resolve("model");
        TestSupport.write(model, "f", "abc");
        String digest = sha256("abc".getBytes(StandardCharsets.UTF_8));
        KeyPair keys = TestSupport.ecKeys("secp256r1");
        ModelVerifier verifier = ModelVerifier.withPublicKey(keys.getPublic());
        String shards = "{\"allow_symlinks\": false, \"hash_type\": \"sha256\", \"method\": \"shards\", "
                + "\"shard_size\": 8}";
        for (String[] resource : List.of(new String[] {"f:0:3", "sha256-sharded-9", digest},
                new String[] {"f", "sha256", digest}, new String[] {"f:0:x", "sha256", digest})) {
            byte[] bundle = bundle(keys, statement("m", subject(List.of(digest)), shards,
                    List.<String[]>of(resource)));
            SigningException e = assertThrows(SigningException.class,
                    () -> verifier.verify(ModelFiles.of(model), bundle, List.of()));
            assertEquals(Reason.INVALID_STATEMENT, e.reason(), resource[0]);
        }
        String md5 = "{\"allow_symlinks\": false, \"hash_type\": \"md5\", \"method\": \"files\"}";
        byte[] bundle = bundle(keys, statement("m", subject(List.of(digest)), md5,
                List.<String[]>of(new String[] {"f", "md5", digest})));
        SigningException e = assertThrows(SigningException.class,
                () -> verifier.verify(ModelFiles.of(model), bundle, List.of()));
        assertEquals(Reason.UNSUPPORTED_ALGORITHM, e.reason());
        assertEquals(ErrorCode.UNSUPPORTED_SIGNATURE, e.code());
    }

    @Test
    void blake3ManifestsVerifyWithTheirDigestsAsTheReferenceWritesThem() throws Exception {
        Path model = dir.resolve("model");
        TestSupport.write(model, "f", "ABCDEFGH");
        KeyPair keys = TestSupport.ecKeys("secp256r1");
        ModelVerifier verifier = ModelVerifier.withPublicKey(keys.getPublic());
        // as model_signing writes blake3: hash_type and algorithm "blake3", the 32-byte digest in hex (b3sum's)
        String whole = "59a216db95aff0f8833f96f341fcb1f6594378096127c2b0fa9f3a849361d979";
        String files = "{\"allow_symlinks\": false, \"hash_type\": \"blake3\", \"method\": \"files\"}";
        byte[] signed = bundle(keys, statement("model", subject(List.of(whole)), files,
                List.<String[]>of(new String[] {"f", "blake3", whole})));
        assertTrue(verifier.verify(ModelFiles.of(model), signed, List.of()).matches());
        // blake3 shards: the spec allows them (the reference writes none), each range hashed on its own
        String shards = "{\"allow_symlinks\": false, \"hash_type\": \"blake3\", \"method\": \"shards\", "
                + "\"shard_size\": 4}";
        List<String> digests = List.of("f3dd21f0f2a842321e46fd8656d154b5eb1edda694a962399b683b9fb21a58df",
                "8c15589bf714a98708e9656800b7962445fd7f633d9f53e358142e3a5611026c");
        byte[] sharded = bundle(keys, statement("model", subject(digests), shards, List.<String[]>of(
                new String[] {"f:0:4", "blake3", digests.get(0)}, new String[] {"f:4:8", "blake3", digests.get(1)})));
        assertTrue(verifier.verify(ModelFiles.of(model), sharded, List.of()).matches());
        TestSupport.write(model, "f", "ABCDEFGX");
        assertEquals(List.of("f"), verifier.verify(ModelFiles.of(model), signed, List.of()).mismatched());
        assertEquals(List.of("f"), verifier.verify(ModelFiles.of(model), sharded, List.of()).mismatched());
    }

    @Test
    void aStatementWithoutResourcesOrPredicateIsInvalid() throws Exception {
        KeyPair keys = TestSupport.ecKeys("secp256r1");
        ModelVerifier verifier = ModelVerifier.withPublicKey(keys.getPublic());
        String files = "{\"allow_symlinks\": false, \"hash_type\": \"sha256\", \"method\": \"files\"}";
        String empty = statement("m", subject(List.of()), files, List.of());
        String noPredicate = "{\"_type\": \"https://in-toto.io/Statement/v1\", \"subject\": [{\"name\": \"m\", "
                + "\"digest\": {\"sha256\": \"00\"}}], \"predicateType\": \"https://model_signing/signature/v1.0\"}";
        for (String statement : List.of(empty, noPredicate)) {
            byte[] bundle = bundle(keys, statement);
            assertEquals(Reason.INVALID_STATEMENT, assertThrows(SigningException.class,
                    () -> verifier.verifySignature(bundle)).reason(), statement);
        }
    }

    @Test
    void theLegacyEncodingIsAcceptedForTheLegacyPredicateOnly() throws Exception {
        byte[] content = "abc".getBytes(StandardCharsets.UTF_8);
        String digest = sha256(content);
        String files = "{\"allow_symlinks\": false, \"hash_type\": \"sha256\", \"method\": \"files\"}";
        KeyPair keys = TestSupport.ecKeys("secp256r1");
        byte[] bundle = legacyBundle(keys, statement("m", subject(List.of(digest)), files,
                List.<String[]>of(new String[] {"f", "sha256", digest})));
        assertEquals(Reason.BAD_SIGNATURE, assertThrows(SigningException.class,
                () -> ModelVerifier.withPublicKey(keys.getPublic()).verifySignature(bundle)).reason());
    }
}
