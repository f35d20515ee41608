package dev.safetensors.signing;

import dev.safetensors.ErrorCode;
import dev.safetensors.signing.SigningException.Reason;
import dev.safetensors.signing.testing.TestSigstore;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keyless (Sigstore) verification, offline: every part of the path (Fulcio chain at the signing time, identity and
 * issuer, Rekor entry body, signed entry timestamp, inclusion proof and checkpoint, RFC 3161 timestamp) on bundles
 * of our own test Sigstore, each broken one at a time; and the OMS specification's keyless vector, made by the
 * reference implementation on Sigstore's public-good instance, against the shipped production root.
 */
class KeylessTest {
    private static final String SPEC_IDENTITY = "stefanb@us.ibm.com";
    private static final String SPEC_ISSUER = "https://sigstore.verify.ibm.com/oauth2";

    private static TestSigstore sigstore;
    private static SigstoreTrustRoot root;

    @TempDir
    Path dir;

    @BeforeAll
    static void setUp() throws Exception {
        sigstore = new TestSigstore();
        root = sigstore.root();
    }

    private ModelVerifier alice() {
        return ModelVerifier.keyless(root, TestSigstore.EMAIL, TestSigstore.EMAIL_ISSUER);
    }

    private byte[] bundle(Path model, TestSigstore.Options options) throws Exception {
        return sigstore.bundle(TestSigstore.statement(model), options);
    }

    private static SigningException refused(ModelVerifier verifier, byte[] bundle, Reason reason) {
        SigningException e = assertThrows(SigningException.class, () -> verifier.verifySignature(bundle));
        assertEquals(reason, e.reason(), e.getMessage());
        assertEquals(reason.code(), ErrorCode.of(e));
        return e;
    }

    @Test
    void aKeylessBundleVerifiesWithItsIdentityAndIssuerAndTheModelMatches() throws Exception {
        Path model = TestSupport.model(dir);
        byte[] bundle = bundle(model, TestSigstore.options());
        VerificationResult result = alice().verify(ModelFiles.of(model), bundle, List.of());
        assertTrue(result.matches(), result.toString());

        Files.writeString(model.resolve("config.json"), "{\"layers\": 3}");
        VerificationResult changed = alice().verify(ModelFiles.of(model), bundle, List.of());
        assertFalse(changed.matches());
        assertEquals(List.of("config.json"), changed.mismatched());
    }

    @Test
    void aWorkloadIdentityIsAUriAndItsIssuerMayBeInTheDeprecatedExtensionOnly() throws Exception {
        byte[] bundle = bundle(TestSupport.model(dir), TestSigstore.options().with(o -> o.leaf = "uri"));
        ModelVerifier.keyless(root, TestSigstore.URI, TestSigstore.URI_ISSUER).verifySignature(bundle);
        refused(ModelVerifier.keyless(root, TestSigstore.URI, TestSigstore.EMAIL_ISSUER), bundle,
                Reason.IDENTITY_MISMATCH);
    }

    @Test
    void anotherIdentityOrIssuerIsAnUntrustedSigner() throws Exception {
        byte[] bundle = bundle(TestSupport.model(dir), TestSigstore.options());
        SigningException identity = refused(ModelVerifier.keyless(root, "mallory@example.com",
                TestSigstore.EMAIL_ISSUER), bundle, Reason.IDENTITY_MISMATCH);
        assertEquals(ErrorCode.UNTRUSTED_SIGNER, identity.code());
        assertTrue(identity.getMessage().contains(TestSigstore.EMAIL), identity.getMessage());
        refused(ModelVerifier.keyless(root, TestSigstore.EMAIL, "https://accounts.google.com"), bundle,
                Reason.IDENTITY_MISMATCH);
        // exact comparison: neither a prefix nor another case of the identity is it
        refused(ModelVerifier.keyless(root, "alice@example.co", TestSigstore.EMAIL_ISSUER), bundle,
                Reason.IDENTITY_MISMATCH);
        refused(ModelVerifier.keyless(root, "Alice@example.com", TestSigstore.EMAIL_ISSUER), bundle,
                Reason.IDENTITY_MISMATCH);
    }

    @Test
    void anAlteredPayloadIsABadSignature() throws Exception {
        Path model = TestSupport.model(dir);
        byte[] signed = TestSigstore.statement(model);
        Files.writeString(model.resolve("a.b"), "changed");
        byte[] other = TestSigstore.statement(model);
        byte[] bundle = sigstore.bundle(signed, TestSigstore.options().with(o -> o.payloadInEnvelope = other));
        assertEquals(ErrorCode.BAD_SIGNATURE, refused(alice(), bundle, Reason.BAD_SIGNATURE).code());
    }

    @Test
    void theEntryAloneOrTheTimestampAloneGivesTheSigningTime() throws Exception {
        Path model = TestSupport.model(dir);
        alice().verifySignature(bundle(model, TestSigstore.options().with(o -> o.timestamp = false)));
        // a log entry with an inclusion proof but no promise (as Rekor v2 writes) is dated by the timestamp
        alice().verifySignature(bundle(model, TestSigstore.options().with(o -> o.signedEntryTimestamp = false)));
        alice().verifySignature(bundle(model, TestSigstore.options().with(o -> o.inclusionProof = false)));
    }

    @Test
    void withoutAVerifiedTimeOrALogEntryTheSignatureIsNotTrusted() throws Exception {
        Path model = TestSupport.model(dir);
        refused(alice(), bundle(model, TestSigstore.options().with(o -> {
            o.signedEntryTimestamp = false;
            o.timestamp = false;
        })), Reason.TRANSPARENCY_LOG);
        refused(alice(), bundle(model, TestSigstore.options().with(o -> o.tlogEntry = false)),
                Reason.TRANSPARENCY_LOG);
        refused(alice(), bundle(model, TestSigstore.options().with(o -> {
            o.signedEntryTimestamp = false;
            o.inclusionProof = false;
        })), Reason.TRANSPARENCY_LOG);
    }

    @Test
    void aLogEntryThatDoesNotHoldIsRefused() throws Exception {
        Path model = TestSupport.model(dir);
        java.security.PrivateKey stranger = TestSupport.ecKeys("secp256r1").getPrivate();
        refused(alice(), bundle(model, TestSigstore.options().with(o -> o.logKey = stranger)),
                Reason.TRANSPARENCY_LOG);
        refused(alice(), bundle(model, TestSigstore.options().with(o -> o.checkpointKey = stranger)),
                Reason.TRANSPARENCY_LOG);
        refused(alice(), bundle(model, TestSigstore.options().with(o -> o.breakProof = true)),
                Reason.TRANSPARENCY_LOG);
        refused(alice(), bundle(model, TestSigstore.options().with(o -> o.logId = new byte[32])),
                Reason.TRANSPARENCY_LOG);
        // an entry of another signature, or of another payload, is not this signature's
        refused(alice(), bundle(model, TestSigstore.options().with(o -> o.body = b -> b.replaceFirst(
                "\"signature\":\"[^\"]+\"", "\"signature\":\"" + Base64.getEncoder().encodeToString(new byte[70])
                        + "\""))), Reason.TRANSPARENCY_LOG);
        refused(alice(), bundle(model, TestSigstore.options().with(o -> o.body = b -> b.replaceFirst(
                "(\"payloadHash\":\\{\"algorithm\":\"sha256\",\"value\":\")[0-9a-f]", "$1x"))),
                Reason.TRANSPARENCY_LOG);
    }

    @Test
    void aTimestampThatDoesNotHoldIsRefused() throws Exception {
        Path model = TestSupport.model(dir);
        java.security.PrivateKey stranger = TestSupport.ecKeys("secp256r1").getPrivate();
        refused(alice(), bundle(model, TestSigstore.options().with(o -> o.tsaKey = stranger)), Reason.TIMESTAMP);
        refused(alice(), bundle(model, TestSigstore.options().with(o -> o.stamped = new byte[]{1, 2, 3})),
                Reason.TIMESTAMP);
        // before the timestamp authority's validity in the trusted root
        refused(alice(), bundle(model, TestSigstore.options().with(o -> o.timestampTime =
                Instant.parse("2024-12-31T23:00:00Z"))), Reason.TIMESTAMP);
    }

    @Test
    void theCertificateMustBeValidAtEveryVerifiedTime() throws Exception {
        Path model = TestSupport.model(dir);
        // logged after the certificate's ten minutes: a stolen key cannot sign later
        Instant late = Instant.parse("2025-03-01T12:30:00Z");
        refused(alice(), bundle(model, TestSigstore.options().with(o -> {
            o.integratedTime = late;
            o.timestamp = false;
        })), Reason.UNTRUSTED_CERTIFICATE);
        refused(alice(), bundle(model, TestSigstore.options().with(o -> o.timestampTime = late)),
                Reason.UNTRUSTED_CERTIFICATE);
        // a CA the root no longer trusts at the signing time
        SigstoreTrustRoot expired = SigstoreTrustRoot.parse(sigstore.trustedRoot("2025-02-01T00:00:00Z"));
        refused(ModelVerifier.keyless(expired, TestSigstore.EMAIL, TestSigstore.EMAIL_ISSUER),
                bundle(model, TestSigstore.options()), Reason.UNTRUSTED_CERTIFICATE);
    }

    @Test
    void olderBundlesCarryTheCertificateAsAChain() throws Exception {
        Path model = TestSupport.model(dir);
        for (String version : List.of("0.1", "0.2")) {
            alice().verifySignature(bundle(model, TestSigstore.options().with(o ->
                    o.mediaType = "application/vnd.dev.sigstore.bundle+json;version=" + version)));
        }
    }

    @Test
    void eachVerifierTakesBundlesOfItsOwnMethodOnly() throws Exception {
        Path model = TestSupport.model(dir);
        byte[] keyless = bundle(model, TestSigstore.options());
        refused(ModelVerifier.withPublicKey(TestSupport.ecKeys("secp256r1").getPublic()), keyless,
                Reason.WRONG_VERIFICATION_METHOD);
        refused(ModelVerifier.withTrustAnchors(List.of(sigstore.fulcioRoot)), keyless,
                Reason.WRONG_VERIFICATION_METHOD);
        java.security.KeyPair keys = TestSupport.ecKeys("secp256r1");
        byte[] keyBundle = ModelSigner.withKey(keys).sign(ModelFiles.of(model), Serialization.files()).bundle();
        refused(alice(), keyBundle, Reason.WRONG_VERIFICATION_METHOD);
    }

    @Test
    void aTrustRootThatCannotBeUsedIsRefused() throws Exception {
        for (String json : List.of("{}", "[]", "{\"mediaType\":\"application/json\"}",
                "{\"mediaType\":\"application/vnd.dev.sigstore.trustedroot+json;version=0.1\",\"tlogs\":[],"
                        + "\"certificateAuthorities\":[]}")) {
            SigningException e = assertThrows(SigningException.class,
                    () -> SigstoreTrustRoot.parse(json.getBytes(StandardCharsets.UTF_8)));
            assertEquals(Reason.INVALID_TRUST_ROOT, e.reason());
            assertEquals(ErrorCode.UNSUPPORTED_SIGNATURE, e.code());
        }
        Path file = dir.resolve("trusted_root.json");
        Files.write(file, sigstore.trustedRoot(null));
        ModelVerifier.keyless(SigstoreTrustRoot.read(file), TestSigstore.EMAIL, TestSigstore.EMAIL_ISSUER)
                .verifySignature(bundle(TestSupport.model(dir), TestSigstore.options()));
    }

    @Test
    void theShippedRootsRead() {
        assertEquals("SigstoreTrustRoot[public-good]", SigstoreTrustRoot.production().toString());
    }

    // the reference implementation's keyless bundle of the OMS specification, on the public-good instance

    @Test
    void theSpecsKeylessVectorVerifiesOfflineAgainstTheShippedProductionRoot() throws Exception {
        byte[] bundle = TestSupport.resourceBytes("oms-spec/valid/sigstore.bundle.json");
        Manifest manifest = ModelVerifier.keyless(SigstoreTrustRoot.production(), SPEC_IDENTITY, SPEC_ISSUER)
                .verifySignature(bundle);
        assertEquals("v1.1.0-sigstore", manifest.modelName());
        assertEquals(List.of("signme-1", "signme-2"), manifest.resources().stream().map(Resource::name).toList());
    }

    @Test
    void theSpecsKeylessVectorFailsForAnotherSignerAnotherRootOrAnAlteredPayload() throws Exception {
        byte[] bundle = TestSupport.resourceBytes("oms-spec/valid/sigstore.bundle.json");
        refused(ModelVerifier.keyless(SigstoreTrustRoot.production(), "someone@example.com", SPEC_ISSUER), bundle,
                Reason.IDENTITY_MISMATCH);
        refused(ModelVerifier.keyless(SigstoreTrustRoot.production(), SPEC_IDENTITY, "https://accounts.google.com"),
                bundle, Reason.IDENTITY_MISMATCH);
        refused(ModelVerifier.keyless(root, SPEC_IDENTITY, SPEC_ISSUER), bundle, Reason.TRANSPARENCY_LOG);
        refused(ModelVerifier.keyless(SigstoreTrustRoot.production(), SPEC_IDENTITY, SPEC_ISSUER),
                withAlteredPayload(bundle), Reason.BAD_SIGNATURE);
    }

    @Test
    void theSpecsKeylessVectorWithoutLogEntriesIsRefused() throws Exception {
        byte[] bundle = TestSupport.resourceBytes("oms-spec/invalid/missing-tlog-entries.bundle.json");
        refused(ModelVerifier.keyless(SigstoreTrustRoot.production(), SPEC_IDENTITY, SPEC_ISSUER), bundle,
                Reason.TRANSPARENCY_LOG);
    }

    /** The bundle with one character of its signed statement changed, still valid JSON and Base64. */
    static byte[] withAlteredPayload(byte[] bundle) {
        String text = new String(bundle, StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("\"payload\"\\s*:\\s*\"([^\"]+)\"").matcher(text);
        assertTrue(m.find(), "the bundle has a payload");
        String payload = new String(Base64.getDecoder().decode(m.group(1)), StandardCharsets.UTF_8);
        String altered = payload.replaceFirst("\"digest\"\\s*:\\s*\"([0-9a-f])", "\"digest\": \"$1$1");
        assertFalse(altered.equals(payload), "the payload has a digest to alter");
        String encoded = Base64.getEncoder().encodeToString(altered.getBytes(StandardCharsets.UTF_8));
        return (text.substring(0, m.start(1)) + encoded + text.substring(m.end(1))).getBytes(StandardCharsets.UTF_8);
    }
}
