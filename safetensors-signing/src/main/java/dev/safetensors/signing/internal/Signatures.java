package dev.safetensors.signing.internal;

import dev.safetensors.signing.SigningException;
import dev.safetensors.signing.SigningException.Reason;

import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.Signature;
import java.security.SignatureException;

/** One signature check on the JDK, for every signature a bundle, a log or a timestamp carries. */
public final class Signatures {
    private Signatures() {
    }

    /**
     * @param key       the public key
     * @param algorithm the JCA signature algorithm ({@code SHA256withECDSA}, {@code Ed25519}, ...)
     * @param data      the signed bytes
     * @param signature the signature
     * @param reason    the reason a key or algorithm the JDK cannot use is reported with
     * @return whether the signature verifies; a signature that is not even well-formed does not
     * @throws SigningException with {@code reason} if the JDK cannot verify with this key and algorithm
     */
    public static boolean verifies(PublicKey key, String algorithm, byte[] data, byte[] signature, Reason reason)
            throws SigningException {
        try {
            Signature s = Signature.getInstance(algorithm);
            s.initVerify(key);
            s.update(data);
            return s.verify(signature);
        } catch (SignatureException e) {
            return false;
        } catch (GeneralSecurityException e) {
            throw new SigningException(reason, "the JDK cannot verify " + algorithm + " with this "
                    + key.getAlgorithm() + " key", e);
        }
    }
}
