package dev.safetensors.signing.internal;

import dev.safetensors.signing.SigningException;
import dev.safetensors.signing.SigningException.Reason;

import java.io.ByteArrayInputStream;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.X509EncodedKeySpec;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads a Sigstore {@code trusted_root.json} (media type {@code application/vnd.dev.sigstore.trustedroot+json;
 * version=0.1}). The certificate-transparency logs it lists are not read: signed certificate timestamps are not
 * checked here.
 */
public final class TrustedRootCodec {
    private static final String MEDIA_TYPE_PREFIX = "application/vnd.dev.sigstore.trustedroot";

    private TrustedRootCodec() {
    }

    /**
     * @param json the trusted root's bytes
     * @return the trusted root
     * @throws SigningException {@link Reason#INVALID_TRUST_ROOT} if it is not a trusted root this code can use
     */
    public static TrustedRoot read(byte[] json) throws SigningException {
        JsonObject root = JsonObject.of(Json.parse(json, "the trusted root", Reason.INVALID_TRUST_ROOT),
                "trustedRoot", Reason.INVALID_TRUST_ROOT);
        String mediaType = root.string("mediaType");
        if (!mediaType.startsWith(MEDIA_TYPE_PREFIX)) {
            throw root.invalid("mediaType", "is \"" + mediaType + "\", not a Sigstore trusted root");
        }
        List<TrustedRoot.Authority> cas = new ArrayList<>();
        for (JsonObject ca : root.objects("certificateAuthorities")) {
            cas.add(authority(ca));
        }
        List<TrustedRoot.Log> logs = new ArrayList<>();
        for (JsonObject log : root.objects("tlogs")) {
            logs.add(log(log));
        }
        List<TrustedRoot.Authority> tsas = new ArrayList<>();
        if (root.has("timestampAuthorities")) {
            for (JsonObject tsa : root.objects("timestampAuthorities")) {
                tsas.add(authority(tsa));
            }
        }
        if (cas.isEmpty() || logs.isEmpty()) {
            throw new SigningException(Reason.INVALID_TRUST_ROOT, "the trusted root names no certificate authority"
                    + " or no transparency log");
        }
        return new TrustedRoot(List.copyOf(cas), List.copyOf(logs), List.copyOf(tsas));
    }

    private static TrustedRoot.Authority authority(JsonObject authority) throws SigningException {
        List<X509Certificate> chain = new ArrayList<>();
        for (JsonObject certificate : authority.object("certChain").objects("certificates")) {
            byte[] der = certificate.base64("rawBytes");
            try {
                chain.add((X509Certificate) CertificateFactory.getInstance("X.509")
                        .generateCertificate(new ByteArrayInputStream(der)));
            } catch (GeneralSecurityException e) {
                throw certificate.invalid("rawBytes", "is not a DER X.509 certificate");
            }
        }
        if (chain.isEmpty()) {
            throw authority.invalid("certChain", "holds no certificate");
        }
        return new TrustedRoot.Authority(authority.optionalString("uri").orElse("?"), List.copyOf(chain),
                validity(authority.object("validFor")));
    }

    private static TrustedRoot.Log log(JsonObject log) throws SigningException {
        JsonObject key = log.object("publicKey");
        String details = key.string("keyDetails");
        String algorithm = details.startsWith("PKIX_ECDSA_") ? "EC" : details.equals("PKIX_ED25519") ? "Ed25519" : null;
        if (algorithm == null) {
            throw key.invalid("keyDetails", "is " + details + ", not an ECDSA or Ed25519 key");
        }
        PublicKey publicKey;
        try {
            publicKey = KeyFactory.getInstance(algorithm).generatePublic(new X509EncodedKeySpec(key.base64("rawBytes")));
        } catch (GeneralSecurityException e) {
            throw key.invalid("rawBytes", "is not a DER " + details + " public key");
        }
        return new TrustedRoot.Log(log.optionalString("baseUrl").orElse("?"), log.object("logId").base64("keyId"),
                publicKey, validity(key.object("validFor")));
    }

    private static TrustedRoot.Validity validity(JsonObject validFor) throws SigningException {
        return new TrustedRoot.Validity(instant(validFor, "start"),
                validFor.has("end") ? Optional.of(instant(validFor, "end")) : Optional.empty());
    }

    private static Instant instant(JsonObject object, String name) throws SigningException {
        try {
            return Instant.parse(object.string(name));
        } catch (DateTimeParseException e) {
            throw object.invalid(name, "is not an RFC 3339 time");
        }
    }
}
