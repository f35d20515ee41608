package dev.safetensors.signing;

import dev.safetensors.signing.SigningException.Reason;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.interfaces.ECPrivateKey;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** PEM keys as OpenSSL writes them. */
class SigningKeysTest {
    @Test
    void pkcs8AndSec1GiveTheSameKeyAndItsPublicKey() throws Exception {
        KeyPair pkcs8 = SigningKeys.readKeyPair(TestSupport.resource("pki/signer-key.pem"));
        KeyPair sec1 = SigningKeys.readKeyPair(TestSupport.resource("pki/signer-key-sec1.pem"));
        PublicKey published = SigningKeys.readPublicKey(TestSupport.resource("pki/signer-pub.pem"));
        assertEquals(((ECPrivateKey) pkcs8.getPrivate()).getS(), ((ECPrivateKey) sec1.getPrivate()).getS());
        assertEquals(published, pkcs8.getPublic());
        assertEquals(published, sec1.getPublic());
        ModelSigner.withKey(sec1);
    }

    @Test
    void theHintIsTheDigestOfTheKeyPemOpenSslWrites() throws Exception {
        String pem = TestSupport.resource("pki/signer-pub.pem");
        String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(pem.getBytes(StandardCharsets.US_ASCII)));
        assertEquals(expected, SigningKeys.hint(SigningKeys.readPublicKey(pem)));
    }

    @Test
    void encryptedAndNonEcKeysAreRefused() throws Exception {
        SigningException encrypted = assertThrows(SigningException.class, () -> SigningKeys.readPrivateKey(
                "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMAA=\n-----END ENCRYPTED PRIVATE KEY-----\n"));
        assertEquals(Reason.UNSUPPORTED_KEY, encrypted.reason());

        java.security.KeyPairGenerator rsa = java.security.KeyPairGenerator.getInstance("RSA");
        rsa.initialize(1024);
        PublicKey rsaKey = rsa.generateKeyPair().getPublic();
        SigningException notEc = assertThrows(SigningException.class, () -> ModelVerifier.withPublicKey(rsaKey));
        assertEquals(Reason.UNSUPPORTED_KEY, notEc.reason());

        SigningException none = assertThrows(SigningException.class,
                () -> SigningKeys.readPublicKey(TestSupport.resource("pki/signer.pem")));
        assertEquals(Reason.UNSUPPORTED_KEY, none.reason());
    }
}
