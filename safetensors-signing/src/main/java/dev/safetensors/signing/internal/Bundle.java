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
 * @param mediaType   the bundle's media type
 * @param tlogEntries the transparency-log entries (empty for key and certificate bundles)
 * @param timestamps  the RFC 3161 timestamp responses or tokens, DER ({@code timestampVerificationData})
 */
public record Bundle(String payloadType, byte[] payload, List<byte[]> signatures, Material material,
                     String mediaType, List<TlogEntry> tlogEntries, List<byte[]> timestamps) {

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

    /**
     * A single signing certificate ({@code certificate}, bundle v0.3): Sigstore's keyless signing, where Fulcio
     * issued the certificate and the transparency log vouches for when it was used. Bundles v0.1 and v0.2 carry
     * the same certificate as the first of an {@code x509CertificateChain}.
     *
     * @param certificate the signing certificate
     */
    public record Keyless(X509Certificate certificate) implements Material {
    }

    /**
     * One Rekor transparency-log entry as the bundle records it.
     *
     * @param logIndex          the entry's index in the log
     * @param logId             the log's key id (SHA-256 of its DER public key)
     * @param kind              the entry's kind ({@code dsse}, {@code intoto}, ...)
     * @param version           the kind's version
     * @param integratedTime    when the log integrated the entry, in seconds since the epoch
     * @param signedEntryTimestamp the log's signed promise of inclusion, if the bundle carries one
     * @param inclusionProof    the Merkle inclusion proof, if the bundle carries one
     * @param canonicalizedBody the entry's body as the log hashed it
     */
    public record TlogEntry(long logIndex, byte[] logId, String kind, String version, long integratedTime,
                            Optional<byte[]> signedEntryTimestamp, Optional<InclusionProof> inclusionProof,
                            byte[] canonicalizedBody) {
    }

    /**
     * An RFC 6962 inclusion proof of an entry, and the log's signed checkpoint for the tree it is in.
     *
     * @param logIndex   the entry's index in this tree (a log shard's own numbering)
     * @param rootHash   the tree's root hash
     * @param treeSize   the tree's size
     * @param hashes     the audit path, leaf to root
     * @param checkpoint the signed note naming the tree's size and root hash
     */
    public record InclusionProof(long logIndex, byte[] rootHash, long treeSize, List<byte[]> hashes,
                                 String checkpoint) {
    }
}
