package dev.safetensors.signing.internal;

import dev.safetensors.signing.SigningException;
import dev.safetensors.signing.SigningException.Reason;

import java.nio.charset.StandardCharsets;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.interfaces.ECKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.List;
import java.util.Optional;

/**
 * Elliptic-curve keys from their DER forms: PKCS#8 {@code PRIVATE KEY} (which the JDK reads), SEC1
 * {@code EC PRIVATE KEY} (which it does not: rewrapped here as PKCS#8), and the public key both may carry, so a
 * signer needs only its private key file. Also which signature algorithm each OMS curve signs with.
 */
public final class EcKeys {
    private static final ECParameterSpec[] CURVES = {named("secp256r1"), named("secp384r1"), named("secp521r1")};
    private static final String[] ALGORITHMS = {"SHA256withECDSA", "SHA384withECDSA", "SHA512withECDSA"};

    private EcKeys() {
    }

    /**
     * A private key and, when its encoding carries it, the public key.
     *
     * @param privateKey the private key
     * @param publicKey  the public key, if the encoding held it
     */
    public record Parsed(PrivateKey privateKey, Optional<PublicKey> publicKey) {
    }

    /**
     * @param pkcs8 a PKCS#8 PrivateKeyInfo
     * @return the key, with its public key when the inner SEC1 structure holds one
     * @throws SigningException {@link Reason#UNSUPPORTED_KEY} if it is not an EC key the JDK reads
     */
    public static Parsed fromPkcs8(byte[] pkcs8) throws SigningException {
        try {
            List<Der.Element> info = Der.children(Der.single(pkcs8).content());
            byte[] algorithm = info.get(1).content();
            List<Der.Element> algorithmParts = Der.children(algorithm);
            if (!java.util.Arrays.equals(algorithmParts.get(0).encoded(), Der.EC_PUBLIC_KEY_OID)) {
                throw new SigningException(Reason.UNSUPPORTED_KEY, "the private key is not an elliptic-curve key");
            }
            byte[] curve = algorithmParts.get(1).encoded();
            PrivateKey key = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
            return new Parsed(key, sec1PublicKey(info.get(2).content(), curve));
        } catch (GeneralSecurityException | IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new SigningException(Reason.UNSUPPORTED_KEY, "not a readable PKCS#8 EC private key", e);
        }
    }

    /**
     * @param sec1 an RFC 5915 ECPrivateKey, which must name its curve
     * @return the key, with its public key when the structure holds one
     * @throws SigningException {@link Reason#UNSUPPORTED_KEY} if it is malformed or names no curve
     */
    public static Parsed fromSec1(byte[] sec1) throws SigningException {
        try {
            byte[] curve = null;
            for (Der.Element part : Der.children(Der.single(sec1).content())) {
                if (part.tag() == 0xa0) {
                    curve = part.content();
                }
            }
            if (curve == null) {
                throw new SigningException(Reason.UNSUPPORTED_KEY, "the EC private key does not name its curve");
            }
            byte[] algorithm = Der.encode(Der.SEQUENCE, Der.EC_PUBLIC_KEY_OID, curve);
            byte[] pkcs8 = Der.encode(Der.SEQUENCE, Der.encode(Der.INTEGER, new byte[] {0}), algorithm,
                    Der.encode(Der.OCTET_STRING, sec1));
            return fromPkcs8(pkcs8);
        } catch (IllegalArgumentException e) {
            throw new SigningException(Reason.UNSUPPORTED_KEY, "not a readable SEC1 EC private key", e);
        }
    }

    /**
     * @param spki an X.509 SubjectPublicKeyInfo
     * @return the key
     * @throws SigningException {@link Reason#UNSUPPORTED_KEY} if it is not an EC public key on an OMS curve
     */
    public static PublicKey publicKey(byte[] spki) throws SigningException {
        try {
            PublicKey key = KeyFactory.getInstance("EC").generatePublic(new X509EncodedKeySpec(spki));
            signatureAlgorithm(key);
            return key;
        } catch (GeneralSecurityException e) {
            throw new SigningException(Reason.UNSUPPORTED_KEY, "not an elliptic-curve public key", e);
        }
    }

    private static Optional<PublicKey> sec1PublicKey(byte[] sec1, byte[] curve) throws SigningException {
        for (Der.Element part : Der.children(Der.single(sec1).content())) {
            if (part.tag() == 0xa1) {
                Der.Element bits = Der.single(part.content());
                byte[] spki = Der.encode(Der.SEQUENCE, Der.encode(Der.SEQUENCE, Der.EC_PUBLIC_KEY_OID, curve),
                        bits.encoded());
                return Optional.of(publicKey(spki));
            }
        }
        return Optional.empty();
    }

    /**
     * The JCA signature algorithm OMS pairs with the key's curve: P-256 with SHA-256, P-384 with SHA-384, P-521
     * with SHA-512, as the reference implementation signs.
     *
     * @param key an EC key, public or private
     * @return {@code SHA256withECDSA}, {@code SHA384withECDSA} or {@code SHA512withECDSA}
     * @throws SigningException {@link Reason#UNSUPPORTED_KEY} for any other key
     */
    public static String signatureAlgorithm(java.security.Key key) throws SigningException {
        if (!(key instanceof ECKey ec)) {
            throw new SigningException(Reason.UNSUPPORTED_KEY, "only elliptic-curve keys sign OMS bundles, not "
                    + key.getAlgorithm());
        }
        for (int i = 0; i < CURVES.length; i++) {
            if (sameCurve(ec.getParams(), CURVES[i])) {
                return ALGORITHMS[i];
            }
        }
        throw new SigningException(Reason.UNSUPPORTED_KEY, "a key on another curve than P-256, P-384 or P-521");
    }

    private static boolean sameCurve(ECParameterSpec a, ECParameterSpec b) {
        return a.getCurve().equals(b.getCurve()) && a.getOrder().equals(b.getOrder())
                && a.getGenerator().equals(b.getGenerator()) && a.getCofactor() == b.getCofactor();
    }

    private static ECParameterSpec named(String curve) {
        try {
            AlgorithmParameters parameters = AlgorithmParameters.getInstance("EC");
            parameters.init(new ECGenParameterSpec(curve));
            return parameters.getParameterSpec(ECParameterSpec.class);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks the NIST curve " + curve, e);
        }
    }

    /**
     * The bundle's {@code publicKey.hint}: lowercase hex SHA-256 of the key's SubjectPublicKeyInfo PEM, as the
     * reference implementation computes it.
     *
     * @param key the public key
     * @return the hint
     */
    public static String hint(PublicKey key) {
        try {
            byte[] pem = Pem.encode("PUBLIC KEY", key.getEncoded()).getBytes(StandardCharsets.US_ASCII);
            return Hex.encode(MessageDigest.getInstance("SHA-256").digest(pem));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
