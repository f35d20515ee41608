package dev.safetensors.signing.internal;

import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;

/**
 * A Sigstore bundle holding a DSSE envelope, as far as OMS uses it: the signed payload, its signatures, and what
 * identifies the signer.
 *
 * @param payloadType the DSSE payload type
 * @param payload     the signed payload bytes (the in-toto statement)
 * @param signatures  the raw signatures, DER-encoded ECDSA
 * @param material    who signed
 */
public record Bundle(String payloadType, byte[] payload, List<byte[]> signatures, Material material) {

    /** The bundle's {@code verificationMaterial}. */
    public sealed interface Material permits KeyHint, CertificateChain, Keyless {
    }

    /**
     * A long-lived key named by its fingerprint ({@code publicKey.hint}); older bundles carry {@code rawBytes}
     * instead, and then no hint.
     *
     * @param hint lowercase hex SHA-256 of the key's PEM, if the bundle gives one
     */
    public record KeyHint(Optional<String> hint) implements Material {
    }

    /**
     * A certificate chain, leaf first ({@code x509CertificateChain}).
     *
     * @param certificates the chain, leaf first
     */
    public record CertificateChain(List<X509Certificate> certificates) implements Material {
    }

    /** A Fulcio certificate with transparency-log entries: Sigstore's keyless signing. */
    public record Keyless() implements Material {
    }
}
