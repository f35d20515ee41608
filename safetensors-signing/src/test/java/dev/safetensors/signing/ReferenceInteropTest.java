package dev.safetensors.signing;

import dev.safetensors.ErrorCode;
import dev.safetensors.signing.SigningException.Reason;
import dev.safetensors.signing.testing.TestSigstore;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Bundles the Python reference implementation signed in each of its releases, verified as its own
 * {@code scripts/tests/test-verify-*.sh} verify them. Those files are not ours to copy, so the test runs only when
 * {@code -Dsigning.interop.dir=} names a checkout's {@code scripts/tests} folder of
 * https://github.com/sigstore/model-transparency; without it, it is skipped.
 */
class ReferenceInteropTest {
    /** Who signed the reference's keyless bundles, as its scripts verify them. */
    private static final String IDENTITY = "stefanb@us.ibm.com";
    private static final String ISSUER = "https://sigstore.verify.ibm.com/oauth2";
    private static Path tests;

    @BeforeAll
    static void locate() {
        String dir = System.getProperty("signing.interop.dir", "");
        tests = dir.isEmpty() ? null : Path.of(dir);
        if (tests == null) {
            System.err.println("SKIPPED ReferenceInteropTest: the Python reference's released bundles are not ours to"
                    + " copy; run with -Dsigning.interop.dir=<a model-transparency checkout>/scripts/tests");
        }
    }

    @ParameterizedTest
    @CsvSource({
            "v0.2.0-certificate, '', certificate",
            "v0.3.1-elliptic-key, signme-1, key",
            "v1.0.0-elliptic-key, signme-1, key",
            "v1.0.1-elliptic-key, '', key",
            "v1.1.0-elliptic-key, '', key",
            "v0.3.1-certificate, '', certificate",
            "v1.0.0-certificate, '', certificate",
            "v1.0.1-certificate, '', certificate",
            "v1.1.0-certificate, '', certificate"})
    void aReleasedReferenceBundleVerifies(String release, String file, String method) throws Exception {
        assumeTrue(tests != null, "set -Dsigning.interop.dir to model-transparency's scripts/tests to run");
        Path folder = tests.resolve(release);
        Path model = file.isEmpty() ? folder : folder.resolve(file);
        byte[] bundle = Files.readAllBytes(folder.resolve("model.sig"));
        // the scripts pass --ignore-paths ignore-me; the signature lies inside the model folder
        List<String> ignored = List.of("ignore-me", "model.sig");
        VerificationResult result = verifier(method).verify(ModelFiles.of(model), bundle, ignored);
        assertTrue(result.matches(), result.toString());
    }

    @ParameterizedTest
    @CsvSource({"key.bundle.json, key", "certificate.bundle.json, certificate"})
    void theSpecsVectorsVerifyWithTheReferenceKeysAndModel(String vector, String method) throws Exception {
        assumeTrue(tests != null, "set -Dsigning.interop.dir to model-transparency's scripts/tests to run");
        // the spec's valid vectors sign the files of the reference's v1.1.0-elliptic-key folder
        byte[] bundle = TestSupport.resourceBytes("oms-spec/valid/" + vector);
        VerificationResult result = verifier(method).verify(ModelFiles.of(tests.resolve("v1.1.0-elliptic-key")),
                bundle, List.of("model.sig"));
        assertTrue(result.matches(), result.toString());
    }

    @ParameterizedTest
    @CsvSource({"v0.3.1-sigstore", "v1.0.0-sigstore", "v1.0.1-sigstore", "v1.1.0-sigstore"})
    void aReleasedKeylessBundleVerifiesOfflineWithItsRecordedIdentity(String release) throws Exception {
        assumeTrue(tests != null, "set -Dsigning.interop.dir to model-transparency's scripts/tests to run");
        Path folder = tests.resolve(release);
        byte[] bundle = Files.readAllBytes(folder.resolve("model.sig"));
        VerificationResult result = ModelVerifier.keyless(SigstoreTrustRoot.production(), IDENTITY, ISSUER)
                .verify(ModelFiles.of(folder), bundle, List.of("ignore-me", "model.sig"));
        assertTrue(result.matches(), result.toString());
    }

    @ParameterizedTest
    @CsvSource({"v0.3.1-sigstore", "v1.0.0-sigstore", "v1.0.1-sigstore", "v1.1.0-sigstore"})
    void aReleasedKeylessBundleFailsForAnotherIdentityOrIssuerOrMethod(String release) throws Exception {
        assumeTrue(tests != null, "set -Dsigning.interop.dir to model-transparency's scripts/tests to run");
        byte[] bundle = Files.readAllBytes(tests.resolve(release).resolve("model.sig"));
        SigningException identity = assertThrows(SigningException.class, () -> ModelVerifier.keyless(
                SigstoreTrustRoot.production(), "someone@example.com", ISSUER).verifySignature(bundle));
        assertEquals(Reason.IDENTITY_MISMATCH, identity.reason());
        assertEquals(ErrorCode.UNTRUSTED_SIGNER, identity.code());
        SigningException issuer = assertThrows(SigningException.class, () -> ModelVerifier.keyless(
                SigstoreTrustRoot.production(), IDENTITY, "https://accounts.google.com").verifySignature(bundle));
        assertEquals(Reason.IDENTITY_MISMATCH, issuer.reason());
        SigningException ours = assertThrows(SigningException.class, () -> ModelVerifier.keyless(
                new TestSigstore().root(), IDENTITY, ISSUER).verifySignature(bundle));
        assertEquals(ErrorCode.UNTRUSTED_SIGNER, ours.code(), ours.getMessage());
        SigningException key = assertThrows(SigningException.class, () -> verifier("key").verifySignature(bundle));
        assertEquals(Reason.WRONG_VERIFICATION_METHOD, key.reason());
    }

    @ParameterizedTest
    @CsvSource({"v0.3.1-sigstore", "v1.1.0-sigstore"})
    void aReleasedKeylessBundleWithAnAlteredPayloadIsABadSignature(String release) throws Exception {
        assumeTrue(tests != null, "set -Dsigning.interop.dir to model-transparency's scripts/tests to run");
        byte[] bundle = KeylessTest.withAlteredPayload(Files.readAllBytes(tests.resolve(release).resolve("model.sig")));
        SigningException e = assertThrows(SigningException.class, () -> ModelVerifier.keyless(
                SigstoreTrustRoot.production(), IDENTITY, ISSUER).verifySignature(bundle));
        assertEquals(Reason.BAD_SIGNATURE, e.reason());
    }

    private static ModelVerifier verifier(String method) throws Exception {
        Path keys = tests.resolve("keys/certificate");
        return method.equals("key")
                ? ModelVerifier.withPublicKey(SigningKeys.readPublicKey(Files.readString(keys.resolve(
                "signing-key-pub.pem"))))
                : ModelVerifier.withTrustAnchors(SigningKeys.readCertificates(Files.readString(keys.resolve(
                "ca-cert.pem"))));
    }
}
