package dev.safetensors.signing.internal;

import dev.safetensors.signing.SigningException;
import dev.safetensors.signing.SigningException.Reason;

import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.cert.CertPath;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Validates a bundle's certificate chain with the JDK's PKIX validator, as the reference implementation validates
 * it with OpenSSL: at the leaf's notBefore (a long-lived signature outlives its certificate), without revocation
 * checks, and with a leaf that may sign (key usage digitalSignature, or extended key usage codeSigning).
 */
public final class CertificateChains {
    private static final String CODE_SIGNING = "1.3.6.1.5.5.7.3.3";
    private static final int DIGITAL_SIGNATURE = 0;

    private CertificateChains() {
    }

    /**
     * @param chain   the bundle's chain, leaf first
     * @param anchors the trusted CAs
     * @return the leaf's public key, to verify the signature with
     * @throws SigningException {@link Reason#UNTRUSTED_CERTIFICATE} if the chain does not validate or the leaf
     *                          may not sign
     */
    public static PublicKey validate(List<X509Certificate> chain, Set<TrustAnchor> anchors) throws SigningException {
        X509Certificate leaf = chain.get(0);
        List<X509Certificate> path = new ArrayList<>(chain.size());
        for (X509Certificate certificate : chain) {
            // a bundle may carry the root itself; PKIX wants the path to stop below the anchor
            if (!isAnchor(certificate, anchors)) {
                path.add(certificate);
            }
        }
        if (path.isEmpty()) {
            path.add(leaf);
        }
        try {
            CertPath certPath = CertificateFactory.getInstance("X.509").generateCertPath(path);
            PKIXParameters parameters = new PKIXParameters(anchors);
            parameters.setRevocationEnabled(false);
            parameters.setDate(leaf.getNotBefore());
            java.security.cert.CertPathValidator.getInstance("PKIX").validate(certPath, parameters);
        } catch (GeneralSecurityException e) {
            throw new SigningException(Reason.UNTRUSTED_CERTIFICATE, "the certificate chain of "
                    + leaf.getSubjectX500Principal() + " does not lead to a trusted CA: " + e.getMessage(), e);
        }
        if (!maySign(leaf)) {
            throw new SigningException(Reason.UNTRUSTED_CERTIFICATE, "the signing certificate "
                    + leaf.getSubjectX500Principal() + " has neither key usage digitalSignature nor extended key "
                    + "usage codeSigning");
        }
        return leaf.getPublicKey();
    }

    /**
     * Validates a chain whose last certificate is trusted as it is (a root of the Sigstore trusted root), at a
     * given time.
     *
     * @param chain  the chain, leaf first, the trusted root last
     * @param time   when it must be valid
     * @param reason the reason a failure is reported with
     * @throws SigningException with {@code reason} if the chain does not validate at that time
     */
    public static void validateAt(List<X509Certificate> chain, java.time.Instant time, Reason reason)
            throws SigningException {
        X509Certificate anchor = chain.get(chain.size() - 1);
        try {
            if (chain.size() == 1) {
                anchor.checkValidity(java.util.Date.from(time));
                return;
            }
            CertPath certPath = CertificateFactory.getInstance("X.509")
                    .generateCertPath(chain.subList(0, chain.size() - 1));
            PKIXParameters parameters = new PKIXParameters(Set.of(new TrustAnchor(anchor, null)));
            parameters.setRevocationEnabled(false);
            parameters.setDate(java.util.Date.from(time));
            java.security.cert.CertPathValidator.getInstance("PKIX").validate(certPath, parameters);
        } catch (GeneralSecurityException e) {
            throw new SigningException(reason, "the certificate " + chain.get(0).getSubjectX500Principal()
                    + " is not valid at " + time + " under " + anchor.getSubjectX500Principal() + ": "
                    + e.getMessage(), e);
        }
    }

    private static boolean isAnchor(X509Certificate certificate, Set<TrustAnchor> anchors) {
        for (TrustAnchor anchor : anchors) {
            if (certificate.equals(anchor.getTrustedCert())) {
                return true;
            }
        }
        return false;
    }

    private static boolean maySign(X509Certificate leaf) throws SigningException {
        boolean[] usage = leaf.getKeyUsage();
        if (usage != null && usage.length > DIGITAL_SIGNATURE && usage[DIGITAL_SIGNATURE]) {
            return true;
        }
        try {
            List<String> extended = leaf.getExtendedKeyUsage();
            return extended != null && extended.contains(CODE_SIGNING);
        } catch (CertificateParsingException e) {
            throw new SigningException(Reason.UNTRUSTED_CERTIFICATE, "the signing certificate's extended key "
                    + "usage cannot be read", e);
        }
    }
}
