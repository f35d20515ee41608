package dev.safetensors.signing;

import dev.safetensors.signing.SigningException.Reason;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Certificate signing against the test PKI of src/test/resources/pki (make-test-certs.sh). */
class CertificateTest {
    @TempDir
    Path dir;

    private static List<X509Certificate> certificates(String... names) throws Exception {
        List<X509Certificate> out = new java.util.ArrayList<>();
        for (String name : names) {
            out.addAll(SigningKeys.readCertificates(TestSupport.resource("pki/" + name + ".pem")));
        }
        return out;
    }

    private static PrivateKey key(String name) throws Exception {
        return SigningKeys.readPrivateKey(TestSupport.resource("pki/" + name + ".pem"));
    }

    @Test
    void aChainToATrustedRootVerifiesForBothSerializations() throws Exception {
        Path model = TestSupport.model(dir);
        ModelSigner signer = ModelSigner.withCertificateChain(key("signer-key"), certificates("signer", "int-ca"));
        ModelVerifier verifier = ModelVerifier.withTrustAnchors(certificates("root-ca"));
        for (Serialization serialization : List.of(Serialization.files(), Serialization.shards(2048))) {
            Path signature = dir.resolve(serialization.method() + ".sig");
            signer.sign(model, signature, serialization);
            assertTrue(verifier.verify(model, signature).matches());
        }
    }

    @Test
    void theSec1FormOfTheKeySignsLikeItsPkcs8Form() throws Exception {
        Path model = TestSupport.model(dir);
        ModelSignature signed = ModelSigner.withCertificateChain(key("signer-key-sec1"),
                certificates("signer", "int-ca", "root-ca")).sign(ModelFiles.of(model), Serialization.files());
        // the root the bundle carries is the anchor itself: left out of the validated path
        ModelVerifier.withTrustAnchors(certificates("root-ca")).verifySignature(signed.bundle());
    }

    @Test
    void anotherCaIsNotTrusted() throws Exception {
        Path model = TestSupport.model(dir);
        byte[] bundle = ModelSigner.withCertificateChain(key("other-signer-key"), certificates("other-signer"))
                .sign(ModelFiles.of(model), Serialization.files()).bundle();
        SigningException e = assertThrows(SigningException.class,
                () -> ModelVerifier.withTrustAnchors(certificates("root-ca")).verifySignature(bundle));
        assertEquals(Reason.UNTRUSTED_CERTIFICATE, e.reason());
    }

    @Test
    void aChainMissingItsIntermediateIsNotTrusted() throws Exception {
        Path model = TestSupport.model(dir);
        byte[] bundle = ModelSigner.withCertificateChain(key("signer-key"), certificates("signer"))
                .sign(ModelFiles.of(model), Serialization.files()).bundle();
        SigningException e = assertThrows(SigningException.class,
                () -> ModelVerifier.withTrustAnchors(certificates("root-ca")).verifySignature(bundle));
        assertEquals(Reason.UNTRUSTED_CERTIFICATE, e.reason());
    }

    @Test
    void aLeafThatMayNotSignIsRefused() throws Exception {
        Path model = TestSupport.model(dir);
        byte[] bundle = ModelSigner.withCertificateChain(key("no-sign-key"), certificates("no-sign", "int-ca"))
                .sign(ModelFiles.of(model), Serialization.files()).bundle();
        SigningException e = assertThrows(SigningException.class,
                () -> ModelVerifier.withTrustAnchors(certificates("root-ca")).verifySignature(bundle));
        assertEquals(Reason.UNTRUSTED_CERTIFICATE, e.reason());
        assertTrue(e.getMessage().contains("digitalSignature"), e.getMessage());
    }

    @Test
    void aBundleIsVerifiedOnlyByTheMethodItWasSignedWith() throws Exception {
        Path model = TestSupport.model(dir);
        KeyPair keys = TestSupport.ecKeys("secp256r1");
        byte[] keyBundle = ModelSigner.withKey(keys).sign(ModelFiles.of(model), Serialization.files()).bundle();
        byte[] certificateBundle = ModelSigner.withCertificateChain(key("signer-key"),
                certificates("signer", "int-ca")).sign(ModelFiles.of(model), Serialization.files()).bundle();

        SigningException asCertificate = assertThrows(SigningException.class,
                () -> ModelVerifier.withTrustAnchors(certificates("root-ca")).verifySignature(keyBundle));
        assertEquals(Reason.WRONG_VERIFICATION_METHOD, asCertificate.reason());
        SigningException asKey = assertThrows(SigningException.class, () -> ModelVerifier.withPublicKey(
                SigningKeys.readPublicKey(TestSupport.resource("pki/signer-pub.pem"))).verifySignature(
                certificateBundle));
        assertEquals(Reason.WRONG_VERIFICATION_METHOD, asKey.reason());
    }

    @Test
    void aCertificateThatIsNotTheKeysIsRefusedAtSigning() throws Exception {
        SigningException e = assertThrows(SigningException.class,
                () -> ModelSigner.withCertificateChain(key("other-signer-key"), certificates("signer", "int-ca")));
        assertEquals(Reason.UNSUPPORTED_KEY, e.reason());
    }

    @Test
    void aSelfSignedSigningCertificateTrustedItselfVerifies() throws Exception {
        Path model = TestSupport.model(dir);
        Path signature = dir.resolve("model.sig");
        ModelSigner.withCertificateChain(key("self-signed-key"), certificates("self-signed"))
                .sign(model, signature, Serialization.files());
        assertTrue(ModelVerifier.withTrustAnchors(certificates("self-signed")).verify(model, signature).matches());
        assertEquals(Reason.UNTRUSTED_CERTIFICATE, assertThrows(SigningException.class,
                () -> ModelVerifier.withTrustAnchors(certificates("root-ca")).verify(model, signature)).reason());
    }
}
