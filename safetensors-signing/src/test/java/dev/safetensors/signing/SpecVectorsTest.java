package dev.safetensors.signing;

import dev.safetensors.ErrorCode;
import dev.safetensors.signing.SigningException.Reason;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The OMS specification's own test vectors (src/test/resources/oms-spec, Apache-2.0). Their model files and the
 * key of the key vector are not published with them, so what can be checked is checked: the certificate vector's
 * signature, made by the reference implementation, verifies with its own chain; the others fail with the right
 * reason.
 */
class SpecVectorsTest {

    @Test
    void theReferenceImplementationsCertificateSignatureVerifies() throws Exception {
        byte[] bundle = TestSupport.resourceBytes("oms-spec/valid/certificate.bundle.json");
        // the vector's root CA is not published with it: its intermediate, carried in the chain, is the anchor
        String json = TestSupport.resource("oms-spec/valid/certificate.bundle.json");
        String intermediate = json.split("\"rawBytes\": \"")[2].split("\"")[0];
        X509Certificate anchor = (X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509")
                .generateCertificate(new java.io.ByteArrayInputStream(Base64.getDecoder().decode(intermediate)));

        Manifest manifest = ModelVerifier.withTrustAnchors(List.of(anchor)).verifySignature(bundle);
        assertEquals("model", manifest.modelName());
        assertEquals(List.of(new Resource("signme-1", "sha256",
                        "bc9a717db6064a32cbe9eae6fc40651dd6d36ef1757183f590eff2b1765d7ebc"),
                new Resource("signme-2", "sha256",
                        "32dcb1f8e1ae52d5963e56a6ba06ab58b424c15ed2a6b70d2feca1d089370028")), manifest.resources());
        assertEquals(List.of(".git", ".gitignore", ".github", "ignore-me", ".gitattributes"),
                manifest.serialization().ignorePaths());
        assertEquals("92745110b1ab4368471cbe31664e10174e954b113a3df333db860317b2c6dec4", manifest.subjectDigest());
    }

    @Test
    void theCertificateVectorIsNotTrustedBySomeoneElsesRoot() throws Exception {
        byte[] bundle = TestSupport.resourceBytes("oms-spec/valid/certificate.bundle.json");
        ModelVerifier ours = ModelVerifier.withTrustAnchors(
                SigningKeys.readCertificates(TestSupport.resource("pki/root-ca.pem")));
        assertEquals(Reason.UNTRUSTED_CERTIFICATE,
                assertThrows(SigningException.class, () -> ours.verifySignature(bundle)).reason());
    }

    @Test
    void theKeyVectorNamesAnotherKeyThanOurs() throws Exception {
        byte[] bundle = TestSupport.resourceBytes("oms-spec/valid/key.bundle.json");
        ModelVerifier ours = ModelVerifier.withPublicKey(TestSupport.ecKeys("secp384r1").getPublic());
        SigningException e = assertThrows(SigningException.class, () -> ours.verifySignature(bundle));
        assertEquals(Reason.KEY_MISMATCH, e.reason());
        assertEquals(true, e.getMessage().contains("e8450dec4eb99dae995da9af1bc2cc9f76ed669ee2e744f57abba763df3e3f8e"));
    }

    @ParameterizedTest
    @CsvSource({
            "valid/sigstore.bundle.json, WRONG_VERIFICATION_METHOD",
            "invalid/missing-tlog-entries.bundle.json, WRONG_VERIFICATION_METHOD",
            "invalid/empty.bundle.json, INVALID_BUNDLE",
            "invalid/missing-envelope.bundle.json, INVALID_BUNDLE",
            "invalid/missing-verification-material.bundle.json, INVALID_BUNDLE"})
    void vectorsThisVerifierDoesNotAcceptFailWithTheirReason(String vector, Reason reason) throws Exception {
        byte[] bundle = TestSupport.resourceBytes("oms-spec/" + vector);
        ModelVerifier verifier = ModelVerifier.withPublicKey(TestSupport.ecKeys("secp256r1").getPublic());
        SigningException e = assertThrows(SigningException.class, () -> verifier.verifySignature(bundle));
        assertEquals(reason, e.reason(), e.getMessage());
        assertEquals(reason.code(), ErrorCode.of(e));
    }

    @Test
    void aKeylessVectorGivenToACertificateVerifierSaysHowToVerifyIt() throws Exception {
        byte[] bundle = TestSupport.resourceBytes("oms-spec/valid/sigstore.bundle.json");
        SigningException e = assertThrows(SigningException.class, () -> ModelVerifier.withTrustAnchors(
                SigningKeys.readCertificates(TestSupport.resource("pki/root-ca.pem"))).verifySignature(bundle));
        assertEquals(Reason.WRONG_VERIFICATION_METHOD, e.reason());
        assertEquals(true, e.getMessage().contains("with an identity and an issuer"), e.getMessage());
    }
}
