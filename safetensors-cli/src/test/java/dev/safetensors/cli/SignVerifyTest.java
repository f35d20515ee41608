package dev.safetensors.cli;

import dev.safetensors.fixtures.LoopbackS3;
import dev.safetensors.signing.testing.TestSigstore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code sign} and {@code verify --signature}: a folder signed with a key verifies with its public key, locally
 * and after being copied to an S3 prefix (s3proxy, in a bucket of this class's own); one file changed at the same
 * size, a file added or removed, another key, a keyless request, each with its exit code and named in text and JSON.
 * Keyless bundles of the signing module's test Sigstore verify against its trusted root given with
 * {@code --trust-root}, and fail for another identity, an altered payload, or the shipped public-good root.
 */
class SignVerifyTest {
    private static final Map<String, String> ENV = InProcess.S3_ENV;
    private static final String BUCKET = "signed";

    @TempDir
    Path dir;
    private Path model;
    private Path key;
    private Path publicKey;
    private Path otherPublicKey;

    @BeforeEach
    void model() throws Exception {
        model = Files.createDirectories(dir.resolve("my-model"));
        Fixtures.twoShards(model);
        Files.writeString(model.resolve("config.json"), "{\"model_type\":\"tiny\"}");
        TestKeys keys = TestKeys.write(dir, "key");
        key = keys.privateKey();
        publicKey = keys.publicKey();
        otherPublicKey = TestKeys.write(dir, "other").publicKey();
    }

    private Cli.Run sign(String... more) {
        List<String> line = new ArrayList<>(List.of("sign", model.toString(), "--key", key.toString(),
                "--public-key", publicKey.toString()));
        line.addAll(List.of(more));
        return InProcess.run(line.toArray(String[]::new));
    }

    @Test
    void aSignedFolderVerifiesAndEveryDifferenceIsNamed() throws Exception {
        Cli.Run signed = sign("--json").exits(0);
        JsonNode line = signed.jsonLines().get(0);
        assertEquals("signature", line.get("kind").asString(), signed.describe());
        assertEquals(model.resolve("model.sig").toAbsolutePath().toString(), line.get("output").asString());
        assertEquals(4, line.get("file_count").asInt(), "two shards, the index and config.json: " + signed.describe());

        Path sig = model.resolve("model.sig");
        Cli.Run ok = InProcess.run("verify", model.toString(), "--signature", sig.toString(), "--public-key",
                publicKey.toString()).exits(0);
        assertTrue(ok.out().startsWith("OK          "), ok.describe());

        Files.writeString(model.resolve("config.json"), "{\"model_type\":\"tinx\"}");
        Files.writeString(model.resolve("notes.txt"), "added after signing");
        Files.delete(model.resolve("model-00002-of-00002.safetensors"));
        Cli.Run differs = InProcess.run("verify", model.toString(), "--signature", sig.toString(),
                "--public-key", publicKey.toString()).exits(1);
        assertTrue(differs.out().contains("changed  config.json"), differs.describe());
        assertTrue(differs.out().contains("extra    notes.txt"), differs.describe());
        assertTrue(differs.out().contains("missing  model-00002-of-00002.safetensors"), differs.describe());
        Cli.Run json = InProcess.run("verify", "--json", model.toString(), "--signature", sig.toString(),
                "--public-key", publicKey.toString(), "--ignore-unsigned-files").exits(1);
        JsonNode result = json.jsonLines().get(0);
        assertEquals("invalid", result.get("status").asString(), json.describe());
        assertEquals("config.json", result.get("changed").get(0).asString());
        assertEquals(0, result.get("extra").size(), "--ignore-unsigned-files leaves notes.txt out");
        assertEquals("model-00002-of-00002.safetensors", result.get("missing").get(0).asString());
    }

    @Test
    void anotherKeyAKeylessRequestAndAMissingTrustAreRefusedWithTheirCodes() {
        sign().exits(0);
        Path sig = model.resolve("model.sig");
        Cli.Run other = InProcess.run("verify", "--json", model.toString(), "--signature", sig.toString(),
                "--public-key", otherPublicKey.toString()).exits(1);
        assertEquals("UNTRUSTED_SIGNER", other.summary().get("code").asString(), other.describe());
        Cli.Run keyless = InProcess.run("verify", "--json", model.toString(), "--signature", sig.toString(),
                "--identity", "someone@example.com", "--issuer", "https://accounts.example.com").exits(1);
        assertEquals("UNTRUSTED_SIGNER", keyless.summary().get("code").asString(), keyless.describe());
        assertTrue(keyless.summary().get("message").asString().contains("keyless"), keyless.describe());
        InProcess.run("verify", model.toString(), "--signature", sig.toString()).exits(2);
        InProcess.run("verify", model.toString(), "--signature", sig.toString(), "--public-key",
                publicKey.toString(), "--sha256", "0".repeat(64)).exits(2);
        Cli.Run notBundle = InProcess.run("verify", "--json", model.toString(), "--signature",
                model.resolve("config.json").toString(), "--public-key", publicKey.toString()).exits(1);
        assertEquals("INVALID_SIGNATURE_BUNDLE", notBundle.summary().get("code").asString(), notBundle.describe());
    }

    @Test
    void ignorePathsMayBeAbsoluteInsideTheModelAndVerifyMayLeaveOutMore() throws Exception {
        Files.writeString(model.resolve("notes.txt"), "not signed");
        Path sig = dir.resolve("my-model.sig");
        // absolute, as the reference's --ignore_paths and the OMS conformance suite give them
        Cli.Run signed = sign("--out", sig.toString(), "--json", "--ignore",
                model.resolve("notes.txt").toAbsolutePath().toString()).exits(0);
        assertEquals(4, signed.jsonLines().get(0).get("file_count").asInt(),
                "notes.txt left out: " + signed.describe());
        sign("--out", sig.toString(), "--ignore", dir.resolve("elsewhere").toAbsolutePath().toString()).exits(2);
        sign("--out", sig.toString(), "--ignore", "../elsewhere").exits(2);

        Files.writeString(model.resolve("later.txt"), "added after signing");
        String[] verify = {"verify", "--json", model.toString(), "--signature", sig.toString(), "--public-key",
                publicKey.toString()};
        Cli.Run extra = InProcess.run(verify).exits(1);
        assertEquals("later.txt", extra.jsonLines().get(0).get("extra").get(0).asString(), extra.describe());
        InProcess.run(append(verify, "--ignore", "later.txt")).exits(0);
        InProcess.run(append(verify, "--ignore", model.resolve("later.txt").toAbsolutePath().toString())).exits(0);
        Cli.Run missing = InProcess.run(append(verify, "--ignore", "later.txt", "--ignore", "config.json")).exits(1);
        assertEquals("config.json", missing.jsonLines().get(0).get("missing").get(0).asString(), missing.describe());
        InProcess.run(append(verify, "--ignore", dir.resolve("elsewhere").toAbsolutePath().toString())).exits(2);
        InProcess.run("verify", model.toString(), "--ignore", "later.txt").exits(2);
    }

    private static String[] append(String[] line, String... more) {
        List<String> all = new ArrayList<>(List.of(line));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    @Test
    void aFolderSignedLocallyVerifiesInS3AndOneObjectChangedAtTheSameSizeIsNamed() throws Exception {
        Path sig = dir.resolve("my-model.sig");
        sign("--out", sig.toString()).exits(0);
        LoopbackS3 s3 = LoopbackS3.shared();
        try (var files = Files.list(model)) {
            for (Path f : files.toList()) {
                s3.put(BUCKET, "my-model/" + f.getFileName(), Files.readAllBytes(f));
            }
        }
        String endpoint = s3.endpoint().toString();
        String prefix = "s3://" + BUCKET + "/my-model/";
        InProcess.run(ENV, "verify", prefix, "--signature", sig.toString(), "--public-key", publicKey.toString(),
                "--s3-endpoint", endpoint, "--s3-path-style").exits(0);
        byte[] config = Files.readAllBytes(model.resolve("config.json"));
        config[config.length - 2] ^= 1;
        s3.put(BUCKET, "my-model/config.json", config);
        Cli.Run changed = InProcess.run(ENV, "verify", prefix, "--signature", sig.toString(), "--public-key",
                publicKey.toString(), "--s3-endpoint", endpoint, "--s3-path-style").exits(1);
        assertTrue(changed.out().contains("changed  config.json"), changed.describe());
    }

    private Path keylessBundle(TestSigstore sigstore, TestSigstore.Options options) throws Exception {
        return Files.write(dir.resolve("keyless.sig"), sigstore.bundle(TestSigstore.statement(model), options));
    }

    @Test
    void aKeylessBundleVerifiesAgainstTheGivenTrustRootForItsIdentityOnly() throws Exception {
        TestSigstore sigstore = new TestSigstore();
        Path sig = keylessBundle(sigstore, TestSigstore.options());
        Path root = Files.write(dir.resolve("trusted_root.json"), sigstore.trustedRoot(null));

        Cli.Run ok = InProcess.run("verify", model.toString(), "--signature", sig.toString(), "--identity",
                TestSigstore.EMAIL, "--issuer", TestSigstore.EMAIL_ISSUER, "--trust-root", root.toString()).exits(0);
        assertTrue(ok.out().startsWith("OK          "), ok.describe());
        assertTrue(ok.out().contains(TestSigstore.EMAIL), ok.describe());

        Cli.Run other = InProcess.run("verify", "--json", model.toString(), "--signature", sig.toString(),
                "--identity", "mallory@example.com", "--issuer", TestSigstore.EMAIL_ISSUER, "--trust-root",
                root.toString()).exits(1);
        assertEquals("UNTRUSTED_SIGNER", other.summary().get("code").asString(), other.describe());

        // the shipped public-good root does not know the test log
        Cli.Run production = InProcess.run("verify", "--json", model.toString(), "--signature", sig.toString(),
                "--identity", TestSigstore.EMAIL, "--issuer", TestSigstore.EMAIL_ISSUER).exits(1);
        assertEquals("UNTRUSTED_SIGNER", production.summary().get("code").asString(), production.describe());

        Files.writeString(model.resolve("config.json"), "{\"model_type\":\"tinx\"}");
        Cli.Run changed = InProcess.run("verify", model.toString(), "--signature", sig.toString(), "--identity",
                TestSigstore.EMAIL, "--issuer", TestSigstore.EMAIL_ISSUER, "--trust-root", root.toString()).exits(1);
        assertTrue(changed.out().contains("changed  config.json"), changed.describe());
    }

    @Test
    void aKeylessBundleWithAnAlteredPayloadIsABadSignature() throws Exception {
        TestSigstore sigstore = new TestSigstore();
        byte[] signed = TestSigstore.statement(model);
        Files.writeString(model.resolve("config.json"), "{\"model_type\":\"tinx\"}");
        byte[] other = TestSigstore.statement(model);
        Path sig = Files.write(dir.resolve("keyless.sig"), sigstore.bundle(signed,
                TestSigstore.options().with(o -> o.payloadInEnvelope = other)));
        Path root = Files.write(dir.resolve("trusted_root.json"), sigstore.trustedRoot(null));
        Cli.Run bad = InProcess.run("verify", "--json", model.toString(), "--signature", sig.toString(),
                "--identity", TestSigstore.EMAIL, "--issuer", TestSigstore.EMAIL_ISSUER, "--trust-root",
                root.toString()).exits(1);
        assertEquals("BAD_SIGNATURE", bad.summary().get("code").asString(), bad.describe());
    }

    @Test
    void keylessOptionsAreCheckedBeforeAnythingIsRead() throws Exception {
        TestSigstore sigstore = new TestSigstore();
        Path sig = keylessBundle(sigstore, TestSigstore.options());
        InProcess.run("verify", model.toString(), "--signature", sig.toString(), "--identity",
                TestSigstore.EMAIL).exits(2);
        InProcess.run("verify", model.toString(), "--signature", sig.toString(), "--issuer",
                TestSigstore.EMAIL_ISSUER).exits(2);
        InProcess.run("verify", model.toString(), "--signature", sig.toString(), "--identity", TestSigstore.EMAIL,
                "--issuer", TestSigstore.EMAIL_ISSUER, "--public-key", publicKey.toString()).exits(2);
        InProcess.run("verify", model.toString(), "--trust-root", "root.json").exits(2);

        Path notRoot = Files.writeString(dir.resolve("not-a-root.json"), "{}");
        Cli.Run unusable = InProcess.run("verify", "--json", model.toString(), "--signature", sig.toString(),
                "--identity", TestSigstore.EMAIL, "--issuer", TestSigstore.EMAIL_ISSUER, "--trust-root",
                notRoot.toString()).exits(3);
        assertEquals("UNSUPPORTED_SIGNATURE", unusable.summary().get("code").asString(), unusable.describe());
        InProcess.run("verify", model.toString(), "--signature", sig.toString(), "--identity", TestSigstore.EMAIL,
                "--issuer", TestSigstore.EMAIL_ISSUER, "--trust-root", dir.resolve("absent.json").toString())
                .exits(3);
    }

    @Test
    void theTrustRootVariableNamesAFileWhenSetAndNotEmpty() {
        assertEquals("/etc/root.json", dev.safetensors.cli.commands.SignatureCheck.trustRootFromEnvironment(
                Map.of("SAFETENSORS_SIGSTORE_TRUST_ROOT", "/etc/root.json")));
        assertEquals(null, dev.safetensors.cli.commands.SignatureCheck.trustRootFromEnvironment(
                Map.of("SAFETENSORS_SIGSTORE_TRUST_ROOT", "")));
        assertEquals(null, dev.safetensors.cli.commands.SignatureCheck.trustRootFromEnvironment(Map.of()));
    }
}
