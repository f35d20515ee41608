package dev.safetensors.signing.internal;

import dev.safetensors.signing.SigningException;
import dev.safetensors.signing.SigningException.Reason;

import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * What a Fulcio signing certificate says about its holder: the identity the OIDC provider vouched for (the
 * subject alternative name, an email address or a URI) and that provider (the Fulcio issuer extension), and
 * whether it chains to a CA of the trusted root at a given time.
 */
public final class FulcioCertificates {
    /** The deprecated issuer extension: the issuer URL as raw bytes. */
    private static final String ISSUER_V1 = "1.3.6.1.4.1.57264.1.1";
    /** The issuer extension since Fulcio 1.1: the issuer URL as a DER UTF8String. */
    private static final String ISSUER_V2 = "1.3.6.1.4.1.57264.1.8";
    private static final int UTF8_STRING = 0x0c;
    private static final int SAN_EMAIL = 1;
    private static final int SAN_URI = 6;
    private static final String CODE_SIGNING = "1.3.6.1.5.5.7.3.3";

    private FulcioCertificates() {
    }

    /**
     * @param certificate a Fulcio certificate
     * @return its email and URI subject alternative names
     * @throws SigningException {@link Reason#INVALID_BUNDLE} if they cannot be read
     */
    public static List<String> identities(X509Certificate certificate) throws SigningException {
        List<String> out = new ArrayList<>();
        try {
            Collection<List<?>> names = certificate.getSubjectAlternativeNames();
            if (names != null) {
                for (List<?> name : names) {
                    int type = (Integer) name.get(0);
                    if ((type == SAN_EMAIL || type == SAN_URI) && name.get(1) instanceof String value) {
                        out.add(value);
                    }
                }
            }
        } catch (CertificateParsingException e) {
            throw new SigningException(Reason.INVALID_BUNDLE, "the signing certificate's subject alternative names"
                    + " cannot be read", e);
        }
        return out;
    }

    /**
     * @param certificate a Fulcio certificate
     * @return the OIDC issuer it records (the newer extension first), if any
     * @throws SigningException {@link Reason#INVALID_BUNDLE} if the extension is malformed
     */
    public static Optional<String> issuer(X509Certificate certificate) throws SigningException {
        try {
            byte[] v2 = certificate.getExtensionValue(ISSUER_V2);
            if (v2 != null) {
                Der.Element value = Der.single(octets(v2));
                if (value.tag() != UTF8_STRING) {
                    throw new IllegalArgumentException("not a UTF8String");
                }
                return Optional.of(new String(value.content(), StandardCharsets.UTF_8));
            }
            byte[] v1 = certificate.getExtensionValue(ISSUER_V1);
            return v1 == null ? Optional.empty() : Optional.of(new String(octets(v1), StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw new SigningException(Reason.INVALID_BUNDLE, "the signing certificate's issuer extension is"
                    + " malformed: " + e.getMessage(), e);
        }
    }

    /**
     * The holder must be exactly the expected identity, vouched for by exactly the expected issuer.
     *
     * @param certificate the signing certificate
     * @param identity    the expected email address or URI
     * @param issuer      the expected OIDC issuer URL
     * @throws SigningException {@link Reason#IDENTITY_MISMATCH} if either differs
     */
    public static void requireIdentity(X509Certificate certificate, String identity, String issuer)
            throws SigningException {
        List<String> identities = identities(certificate);
        if (!identities.contains(identity)) {
            throw new SigningException(Reason.IDENTITY_MISMATCH, "the signing certificate is for "
                    + (identities.isEmpty() ? "no email or URI identity" : String.join(", ", identities))
                    + ", not " + identity);
        }
        Optional<String> recorded = issuer(certificate);
        if (!recorded.equals(Optional.of(issuer))) {
            throw new SigningException(Reason.IDENTITY_MISMATCH, "the signing certificate's identity was issued by "
                    + recorded.orElse("no recorded OIDC issuer") + ", not " + issuer);
        }
    }

    /**
     * The certificate must chain to a CA of the trusted root that was valid at {@code time}, be valid itself then,
     * and be for code signing.
     *
     * @param certificate the signing certificate
     * @param root        the trusted root
     * @param time        a verified time the signature existed at
     * @throws SigningException {@link Reason#UNTRUSTED_CERTIFICATE} otherwise
     */
    public static void requireTrusted(X509Certificate certificate, TrustedRoot root, Instant time)
            throws SigningException {
        try {
            List<String> usage = certificate.getExtendedKeyUsage();
            if (usage == null || !usage.contains(CODE_SIGNING)) {
                throw new SigningException(Reason.UNTRUSTED_CERTIFICATE, "the signing certificate is not for code"
                        + " signing");
            }
        } catch (CertificateParsingException e) {
            throw new SigningException(Reason.UNTRUSTED_CERTIFICATE, "the signing certificate's extended key usage"
                    + " cannot be read", e);
        }
        SigningException last = null;
        for (TrustedRoot.Authority ca : root.certificateAuthorities()) {
            if (!ca.validity().contains(time)) {
                continue;
            }
            List<X509Certificate> chain = new ArrayList<>();
            chain.add(certificate);
            chain.addAll(ca.chain());
            try {
                CertificateChains.validateAt(chain, time, Reason.UNTRUSTED_CERTIFICATE);
                return;
            } catch (SigningException e) {
                last = e;
            }
        }
        throw last != null ? last : new SigningException(Reason.UNTRUSTED_CERTIFICATE, "no certificate authority"
                + " of the trusted root was valid at " + time);
    }

    /** @return the content of the DER OCTET STRING {@link X509Certificate#getExtensionValue} wraps a value in */
    private static byte[] octets(byte[] extension) {
        Der.Element element = Der.single(extension);
        if (element.tag() != Der.OCTET_STRING) {
            throw new IllegalArgumentException("not an OCTET STRING");
        }
        return element.content();
    }
}
