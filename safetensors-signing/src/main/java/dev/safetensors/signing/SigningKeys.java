package dev.safetensors.signing;

import dev.safetensors.signing.SigningException.Reason;
import dev.safetensors.signing.internal.EcKeys;
import dev.safetensors.signing.internal.Pem;

import java.io.ByteArrayInputStream;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the PEM files signers and verifiers are given: elliptic-curve private keys (PKCS#8 {@code PRIVATE KEY} or
 * SEC1 {@code EC PRIVATE KEY}, unencrypted), public keys ({@code PUBLIC KEY}) and certificates. Only P-256, P-384
 * and P-521 keys are accepted, the curves OMS signs with.
 */
public final class SigningKeys {
    private SigningKeys() {
    }

    /**
     * @param pem PEM text holding one private key block (other blocks, such as {@code EC PARAMETERS}, are skipped)
     * @return the private key, with its public key, which both encodings carry when OpenSSL wrote them
     * @throws SigningException {@link Reason#UNSUPPORTED_KEY} if there is no unencrypted EC private key on an OMS
     *                          curve, or it does not carry its public key
     */
    public static KeyPair readKeyPair(String pem) throws SigningException {
        EcKeys.Parsed parsed = parsePrivate(pem);
        PublicKey publicKey = parsed.publicKey().orElseThrow(() -> new SigningException(Reason.UNSUPPORTED_KEY,
                "the private key does not carry its public key; read the public key from its own file"));
        return new KeyPair(publicKey, parsed.privateKey());
    }

    /**
     * @param pem PEM text holding one private key block
     * @return the private key
     * @throws SigningException {@link Reason#UNSUPPORTED_KEY} if there is no unencrypted EC private key on an OMS
     *                          curve
     */
    public static PrivateKey readPrivateKey(String pem) throws SigningException {
        return parsePrivate(pem).privateKey();
    }

    /**
     * @param pem PEM text holding a {@code PUBLIC KEY} block
     * @return the public key
     * @throws SigningException {@link Reason#UNSUPPORTED_KEY} if there is none, or it is not an EC key on an OMS
     *                          curve
     */
    public static PublicKey readPublicKey(String pem) throws SigningException {
        for (Pem.Block block : blocks(pem)) {
            if (block.label().equals("PUBLIC KEY")) {
                return EcKeys.publicKey(block.der());
            }
        }
        throw new SigningException(Reason.UNSUPPORTED_KEY, "no PUBLIC KEY block in the PEM text");
    }

    /**
     * @param pem PEM text holding {@code CERTIFICATE} blocks
     * @return the certificates in order
     * @throws SigningException {@link Reason#UNSUPPORTED_KEY} if there is none, or one is not X.509
     */
    public static List<X509Certificate> readCertificates(String pem) throws SigningException {
        List<X509Certificate> out = new ArrayList<>();
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            for (Pem.Block block : blocks(pem)) {
                if (block.label().equals("CERTIFICATE")) {
                    out.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(block.der())));
                }
            }
        } catch (CertificateException e) {
            throw new SigningException(Reason.UNSUPPORTED_KEY, "a CERTIFICATE block is not an X.509 certificate", e);
        }
        if (out.isEmpty()) {
            throw new SigningException(Reason.UNSUPPORTED_KEY, "no CERTIFICATE block in the PEM text");
        }
        return List.copyOf(out);
    }

    /**
     * The fingerprint a key bundle names its key by ({@code verificationMaterial.publicKey.hint}).
     *
     * @param key a public key
     * @return lowercase hex SHA-256 of the key's PEM (SubjectPublicKeyInfo, 64-column lines)
     */
    public static String hint(PublicKey key) {
        return EcKeys.hint(key);
    }

    private static EcKeys.Parsed parsePrivate(String pem) throws SigningException {
        for (Pem.Block block : blocks(pem)) {
            if (block.headers() || block.label().equals("ENCRYPTED PRIVATE KEY")) {
                throw new SigningException(Reason.UNSUPPORTED_KEY, "encrypted private keys are not supported; "
                        + "decrypt it first (openssl pkcs8 -nocrypt)");
            }
            if (block.label().equals("PRIVATE KEY")) {
                return EcKeys.fromPkcs8(block.der());
            }
            if (block.label().equals("EC PRIVATE KEY")) {
                return EcKeys.fromSec1(block.der());
            }
        }
        throw new SigningException(Reason.UNSUPPORTED_KEY, "no PRIVATE KEY or EC PRIVATE KEY block in the PEM text");
    }

    private static List<Pem.Block> blocks(String pem) throws SigningException {
        try {
            return Pem.blocks(pem);
        } catch (IllegalArgumentException e) {
            throw new SigningException(Reason.UNSUPPORTED_KEY, "a PEM block is not Base64", e);
        }
    }
}
