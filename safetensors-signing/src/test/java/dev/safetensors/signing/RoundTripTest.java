package dev.safetensors.signing;

import dev.safetensors.ErrorCode;
import dev.safetensors.signing.SigningException.Reason;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Sign, then verify: with keys generated here, for both serializations, and with the model changed in between. */
class RoundTripTest {
    @TempDir
    Path dir;

    private static Serialization serialization(String method) {
        return method.equals("files") ? Serialization.files() : Serialization.shards(1024);
    }

    @ParameterizedTest
    @CsvSource({"secp256r1,files", "secp256r1,shards", "secp384r1,files", "secp384r1,shards", "secp521r1,files"})
    void aSignedModelVerifies(String curve, String method) throws Exception {
        KeyPair keys = TestSupport.ecKeys(curve);
        Path model = TestSupport.model(dir);
        Path signature = dir.resolve("model.sig");
        ModelSignature signed = ModelSigner.withKey(keys).sign(model, signature, serialization(method));

        VerificationResult result = ModelVerifier.withPublicKey(keys.getPublic()).verify(model, signature);
        assertTrue(result.matches(), result.toString());
        assertEquals(signed.manifest(), result.manifest());
        assertEquals("my-model", result.manifest().modelName());
        List<String> names = result.manifest().resources().stream().map(Resource::name).toList();
        if (method.equals("files")) {
            // reference order: by path component, so a/b before a.b; the empty file is listed
            assertEquals(List.of("a/b", "a.b", "config.json", "empty.txt", "weights/model-00001.bin",
                    "weights/model-00002.bin"), names);
        } else {
            // shards: numeric offsets, the empty file has none
            assertEquals(List.of("a/b:0:6", "a.b:0:6", "config.json:0:13", "weights/model-00001.bin:0:1024",
                    "weights/model-00001.bin:1024:2048", "weights/model-00001.bin:2048:3072",
                    "weights/model-00001.bin:3072:4096", "weights/model-00001.bin:4096:5000",
                    "weights/model-00002.bin:0:1024", "weights/model-00002.bin:1024:2048",
                    "weights/model-00002.bin:2048:3001"), names);
        }
        assertEquals(List.of(".git", ".gitattributes", ".github", ".gitignore"),
                result.manifest().serialization().ignorePaths());
    }

    @Test
    void aLocalModelVerifiesWithMorePathsLeftOutThanTheManifestRecords() throws Exception {
        KeyPair keys = TestSupport.ecKeys("secp256r1");
        Path model = TestSupport.model(dir);
        Path signature = model.resolve("model.sig");
        ModelSigner.withKey(keys).sign(model, signature, Serialization.files());
        TestSupport.write(model, "cache/notes.txt", "added after signing");
        ModelVerifier verifier = ModelVerifier.withPublicKey(keys.getPublic());

        assertEquals(List.of("cache/notes.txt"), verifier.verify(model, signature).extra());
        // the signature inside the model stays left out besides the paths given
        VerificationResult ignored = verifier.verify(model, signature, List.of("cache"));
        assertTrue(ignored.matches(), ignored.toString());
        // a signed file left out at verification is not hashed, so it is missing rather than silently accepted
        VerificationResult signedButIgnored = verifier.verify(model, signature, List.of("cache", "config.json"));
        assertEquals(List.of("config.json"), signedButIgnored.missing());
        assertEquals(List.of(), signedButIgnored.extra());
    }

    @ParameterizedTest
    @CsvSource({"files", "shards"})
    void everyChangedMissingAndExtraFileIsReported(String method) throws Exception {
        KeyPair keys = TestSupport.ecKeys("secp256r1");
        Path model = TestSupport.model(dir);
        byte[] bundle = ModelSigner.withKey(keys).sign(ModelFiles.of(model), serialization(method)).bundle();

        Path weights = model.resolve("weights/model-00001.bin");
        byte[] changed = Files.readAllBytes(weights);
        changed[4500] ^= 1;
        Files.write(weights, changed);
        Files.delete(model.resolve("config.json"));
        TestSupport.write(model, "extra/notes.txt", "not signed");

        ModelVerifier verifier = ModelVerifier.withPublicKey(keys.getPublic());
        VerificationResult result = verifier.verify(ModelFiles.of(model), bundle, List.of());
        assertFalse(result.matches());
        assertEquals(List.of("weights/model-00001.bin"), result.mismatched());
        assertEquals(List.of("config.json"), result.missing());
        assertEquals(List.of("extra/notes.txt"), result.extra());
        SigningException e = assertThrows(SigningException.class, result::requireMatch);
        assertEquals(Reason.MODEL_MISMATCH, e.reason());
        assertEquals(ErrorCode.SHA256_MISMATCH, ErrorCode.of(e));

        VerificationResult lenient = verifier.ignoreUnsignedFiles(true).verify(ModelFiles.of(model), bundle,
                List.of());
        assertEquals(List.of(), lenient.extra());
        assertEquals(List.of("weights/model-00001.bin"), lenient.mismatched());
    }

    @Test
    void anExtraFileAloneFailsUnlessUnsignedFilesAreIgnored() throws Exception {
        KeyPair keys = TestSupport.ecKeys("secp256r1");
        Path model = TestSupport.model(dir);
        byte[] bundle = ModelSigner.withKey(keys).sign(ModelFiles.of(model), Serialization.files()).bundle();
        TestSupport.write(model, "added.bin", "x");
        ModelVerifier verifier = ModelVerifier.withPublicKey(keys.getPublic());
        assertEquals(List.of("added.bin"), verifier.verify(ModelFiles.of(model), bundle, List.of()).extra());
        assertTrue(verifier.ignoreUnsignedFiles(true).verify(ModelFiles.of(model), bundle, List.of()).matches());
    }

    @Test
    void aShardedFileThatGrewIsReportedWithoutHashingIt() throws Exception {
        KeyPair keys = TestSupport.ecKeys("secp256r1");
        Path model = TestSupport.model(dir);
        byte[] bundle = ModelSigner.withKey(keys).sign(ModelFiles.of(model), Serialization.shards(1024)).bundle();
        Files.write(model.resolve("a.b"), "dotted!".getBytes(StandardCharsets.UTF_8));
        VerificationResult result = ModelVerifier.withPublicKey(keys.getPublic())
                .verify(ModelFiles.of(model), bundle, List.of());
        assertEquals(List.of("a.b"), result.mismatched());
    }

    @Test
    void aWrongKeyIsRefusedByItsHintAndWithoutAHintByTheSignature() throws Exception {
        KeyPair keys = TestSupport.ecKeys("secp256r1");
        KeyPair other = TestSupport.ecKeys("secp256r1");
        Path model = TestSupport.model(dir);
        byte[] bundle = ModelSigner.withKey(keys).sign(ModelFiles.of(model), Serialization.files()).bundle();
        ModelVerifier wrong = ModelVerifier.withPublicKey(other.getPublic());

        SigningException mismatch = assertThrows(SigningException.class, () -> wrong.verifySignature(bundle));
        assertEquals(Reason.KEY_MISMATCH, mismatch.reason());

        String json = new String(bundle, StandardCharsets.UTF_8);
        String hint = "\"hint\":\"" + SigningKeys.hint(keys.getPublic()) + "\"";
        assertTrue(json.contains(hint), json);
        byte[] noHint = json.replace(hint, "\"rawBytes\":\"\"").getBytes(StandardCharsets.UTF_8);
        SigningException bad = assertThrows(SigningException.class, () -> wrong.verifySignature(noHint));
        assertEquals(Reason.BAD_SIGNATURE, bad.reason());
        assertEquals(ErrorCode.BAD_SIGNATURE, bad.code());
        // the right key still verifies the hint-less (pre-v1.1) form
        ModelVerifier.withPublicKey(keys.getPublic()).verifySignature(noHint);
    }

    @Test
    void aPayloadChangedAfterSigningIsABadSignature() throws Exception {
        KeyPair keys = TestSupport.ecKeys("secp384r1");
        Path model = TestSupport.model(dir);
        ModelSignature signed = ModelSigner.withKey(keys).sign(ModelFiles.of(model), Serialization.files());
        String json = new String(signed.bundle(), StandardCharsets.UTF_8);
        String payload = json.replaceAll(".*\"payload\":\"([^\"]+)\".*", "$1");
        String forged = java.util.Base64.getEncoder().encodeToString(new String(java.util.Base64.getDecoder()
                .decode(payload), StandardCharsets.UTF_8).replace("my-model", "my-modem").getBytes(
                StandardCharsets.UTF_8));
        byte[] tampered = json.replace(payload, forged).getBytes(StandardCharsets.UTF_8);
        SigningException e = assertThrows(SigningException.class,
                () -> ModelVerifier.withPublicKey(keys.getPublic()).verifySignature(tampered));
        assertEquals(Reason.BAD_SIGNATURE, e.reason());
    }

    @Test
    void aSingleFileModelIsNamedByItsFileName() throws Exception {
        KeyPair keys = TestSupport.ecKeys("secp256r1");
        Path file = TestSupport.write(dir, "model.safetensors", TestSupport.bytes(2000, 3));
        Path signature = dir.resolve("model.sig");
        ModelSignature signed = ModelSigner.withKey(keys).sign(file, signature, Serialization.shards(1000));
        assertEquals(List.of("model.safetensors:0:1000", "model.safetensors:1000:2000"),
                signed.manifest().resources().stream().map(Resource::name).toList());
        assertTrue(ModelVerifier.withPublicKey(keys.getPublic()).verify(file, signature).matches());
    }

    @Test
    void aSignatureInsideTheModelIsLeftOutAndRecorded() throws Exception {
        KeyPair keys = TestSupport.ecKeys("secp256r1");
        Path model = TestSupport.model(dir);
        Path signature = model.resolve("model.sig");
        ModelSignature signed = ModelSigner.withKey(keys).sign(model, signature, Serialization.files()
                .withIgnorePaths(List.of("weights")));
        assertTrue(Files.exists(signature));
        assertEquals(List.of(".git", ".gitattributes", ".github", ".gitignore", "model.sig", "weights"),
                signed.manifest().serialization().ignorePaths());
        assertEquals(List.of("a/b", "a.b", "config.json", "empty.txt"),
                signed.manifest().resources().stream().map(Resource::name).toList());
        // a re-signature replaces the bundle, and the ignored folder may change freely
        TestSupport.write(model, "weights/new.bin", "anything");
        assertTrue(ModelVerifier.withPublicKey(keys.getPublic()).verify(model, signature).matches());
    }

    @Test
    void symbolicLinksAreRefusedUnlessAllowed() throws Exception {
        KeyPair keys = TestSupport.ecKeys("secp256r1");
        Path model = TestSupport.model(dir);
        Files.createSymbolicLink(model.resolve("link.json"), model.resolve("config.json"));
        ModelSigner signer = ModelSigner.withKey(keys);
        SigningException e = assertThrows(SigningException.class,
                () -> signer.sign(ModelFiles.of(model), Serialization.files()));
        assertEquals(Reason.SYMLINK_REFUSED, e.reason());
        assertEquals(ErrorCode.NOT_A_FILE, e.code());

        ModelSignature signed = signer.sign(ModelFiles.of(model), Serialization.files().withAllowSymlinks(true));
        Resource link = signed.manifest().resources().stream().filter(r -> r.name().equals("link.json"))
                .findFirst().orElseThrow();
        Resource target = signed.manifest().resources().stream().filter(r -> r.name().equals("config.json"))
                .findFirst().orElseThrow();
        assertEquals(target.digest(), link.digest());
        assertTrue(ModelVerifier.withPublicKey(keys.getPublic())
                .verify(ModelFiles.of(model), signed.bundle(), List.of()).matches());
    }

    @Test
    void aModelWithNothingToSignIsRefused() throws IOException, GeneralSecurityException {
        Path model = Files.createDirectories(dir.resolve("empty"));
        TestSupport.write(model, ".git/config", "[core]");
        SigningException e = assertThrows(SigningException.class, () -> ModelSigner.withKey(
                TestSupport.ecKeys("secp256r1")).sign(ModelFiles.of(model), Serialization.files()));
        assertEquals(Reason.EMPTY_MODEL, e.reason());
    }

    @ParameterizedTest
    @CsvSource({"blake2b,files,128", "blake2b,shards,128", "blake3,files,64"})
    void blake2bAndBlake3ManifestsRoundTrip(String hash, String method, int hexDigits) throws Exception {
        KeyPair keys = TestSupport.ecKeys("secp256r1");
        Path model = TestSupport.model(dir);
        ModelSignature signed = ModelSigner.withKey(keys).sign(ModelFiles.of(model),
                serialization(method).withHashType(hash));
        assertEquals(hash, signed.manifest().serialization().hashType());
        // named and sized as model_signing writes them: blake2b-512 and blake3's 32 bytes, in hex
        assertTrue(signed.manifest().resources().stream().allMatch(r -> r.algorithm().equals(hash)
                && r.digest().length() == hexDigits));
        if (hash.equals(Serialization.BLAKE3)) {
            // b3sum of config.json's bytes
            assertEquals("72ddb6caf3519060c64aec53dfa86ef811db4f87c283f13b4bf4085d7a81a8ea", signed.manifest()
                    .resources().stream().filter(r -> r.name().equals("config.json")).findFirst().orElseThrow()
                    .digest());
        }
        ModelVerifier verifier = ModelVerifier.withPublicKey(keys.getPublic());
        assertTrue(verifier.verify(ModelFiles.of(model), signed.bundle(), List.of()).matches());
        Files.writeString(model.resolve("a.b"), "DOTTED");
        assertEquals(List.of("a.b"), verifier.verify(ModelFiles.of(model), signed.bundle(), List.of()).mismatched());
    }

    @Test
    void blake3ShardsAndUnknownHashesAreRefusedWithACode() throws Exception {
        Path model = TestSupport.model(dir);
        ModelSigner signer = ModelSigner.withKey(TestSupport.ecKeys("secp256r1"));
        // the reference signs blake3 whole files only, and its verifier re-hashes a blake3 manifest file by file
        SigningException blake3 = assertThrows(SigningException.class,
                () -> signer.sign(ModelFiles.of(model), Serialization.shards(1024).withHashType("blake3")));
        assertEquals(Reason.UNSUPPORTED_ALGORITHM, blake3.reason());
        assertEquals(ErrorCode.UNSUPPORTED_SIGNATURE, blake3.code());
        assertTrue(blake3.getMessage().contains("files serialization only"), blake3.getMessage());
        SigningException md5 = assertThrows(SigningException.class,
                () -> signer.sign(ModelFiles.of(model), Serialization.files().withHashType("md5")));
        assertEquals(Reason.UNSUPPORTED_ALGORITHM, md5.reason());
    }

    @Test
    void aKeyPairThatDoesNotMatchIsRefused() throws Exception {
        KeyPair a = TestSupport.ecKeys("secp256r1");
        KeyPair b = TestSupport.ecKeys("secp256r1");
        SigningException e = assertThrows(SigningException.class,
                () -> ModelSigner.withKey(new KeyPair(b.getPublic(), a.getPrivate())));
        assertEquals(Reason.UNSUPPORTED_KEY, e.reason());
    }

    @Test
    void namesWithSpacesUnicodeAndDotsRoundTripAndHiddenFilesOtherThanGitAreSigned() throws Exception {
        KeyPair keys = TestSupport.ecKeys("secp256r1");
        Path model = dir.resolve("model");
        TestSupport.write(model, "path with spaces/file (copy).bin", "a");
        TestSupport.write(model, "\u6a21\u578b.bin", "b");
        TestSupport.write(model, ".cache/weights.bin", "c");
        TestSupport.write(model, ".env.example", "d");
        TestSupport.write(model, ".github/ci.yml", "ignored");
        TestSupport.write(model, "sub/.git", "only the root's .git is ignored");
        Path signature = dir.resolve("model.sig");
        ModelSignature signed = ModelSigner.withKey(keys).sign(model, signature, Serialization.files());
        assertEquals(List.of(".cache/weights.bin", ".env.example", "path with spaces/file (copy).bin", "sub/.git",
                "\u6a21\u578b.bin"), signed.manifest().resources().stream().map(Resource::name).toList());
        assertTrue(ModelVerifier.withPublicKey(keys.getPublic()).verify(model, signature).matches());
    }

    @Test
    void aSymbolicLinkLoopIsRefusedEvenWhenLinksAreAllowed() throws Exception {
        Path model = TestSupport.model(dir);
        Files.createSymbolicLink(model.resolve("weights/loop"), model);
        SigningException e = assertThrows(SigningException.class, () -> ModelSigner.withKey(
                TestSupport.ecKeys("secp256r1")).sign(ModelFiles.of(model), Serialization.files()
                .withAllowSymlinks(true)));
        assertEquals(Reason.SYMLINK_REFUSED, e.reason());
    }
}
