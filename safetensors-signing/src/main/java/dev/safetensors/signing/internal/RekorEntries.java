package dev.safetensors.signing.internal;

import dev.safetensors.signing.SigningException;
import dev.safetensors.signing.SigningException.Reason;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * Checks a Rekor transparency-log entry of a DSSE bundle offline, as the Sigstore client specification asks: the
 * entry's body records this envelope's payload, signature and certificate; the log's signed entry timestamp (its
 * promise of inclusion) verifies with the log's key from the trusted root; the inclusion proof leads from the
 * entry to the root hash of a checkpoint the log signed. What verifies gives the time the log integrated the entry,
 * the time the certificate is then checked at.
 */
public final class RekorEntries {
    private static final byte[] NOTE_SIGNATURE_PREFIX = "\u2014 ".getBytes(StandardCharsets.UTF_8);

    private RekorEntries() {
    }

    /**
     * @param entry       the bundle's entry
     * @param root        the trusted root naming the log
     * @param payload     the envelope's payload
     * @param signature   the envelope's signature that verified
     * @param certificate the signing certificate
     * @return the entry's integrated time, if its signed entry timestamp vouches for it (an entry with an inclusion
     *         proof only proves it is in the log, not when it was added)
     * @throws SigningException {@link Reason#TRANSPARENCY_LOG} if the entry is not of this signature, not signed
     *                          by a trusted log, or its proof does not hold; {@link Reason#INVALID_BUNDLE} if its
     *                          body is malformed
     */
    public static Optional<Instant> verify(Bundle.TlogEntry entry, TrustedRoot root, byte[] payload, byte[] signature,
                                           X509Certificate certificate) throws SigningException {
        TrustedRoot.Log log = root.transparencyLogs().stream().filter(l -> l.is(entry.logId())).findFirst()
                .orElseThrow(() -> failure("the entry's log (key id " + Hex.encode(entry.logId())
                        + ") is not in the trusted root"));
        checkBody(entry, payload, signature, certificate);
        if (entry.signedEntryTimestamp().isEmpty() && entry.inclusionProof().isEmpty()) {
            throw failure("the entry at index " + entry.logIndex() + " has neither a signed entry timestamp nor an"
                    + " inclusion proof");
        }
        if (entry.inclusionProof().isPresent()) {
            checkInclusion(entry, entry.inclusionProof().get(), log);
        }
        if (entry.signedEntryTimestamp().isEmpty()) {
            return Optional.empty();
        }
        checkSignedEntryTimestamp(entry, entry.signedEntryTimestamp().get(), log);
        Instant integrated = Instant.ofEpochSecond(entry.integratedTime());
        if (!log.validity().contains(integrated)) {
            throw failure("the entry was integrated at " + integrated + ", outside the validity of log "
                    + log.baseUrl() + "'s key");
        }
        return Optional.of(integrated);
    }

    /** The body must be a {@code dsse} entry of exactly this payload, signature and certificate. */
    private static void checkBody(Bundle.TlogEntry entry, byte[] payload, byte[] signature,
                                  X509Certificate certificate) throws SigningException {
        if (!entry.kind().equals("dsse") || !entry.version().equals("0.0.1")) {
            throw failure("the entry is of kind " + entry.kind() + " " + entry.version() + ": only dsse 0.0.1"
                    + " entries are checked");
        }
        JsonObject body = JsonObject.of(Json.parse(entry.canonicalizedBody(), "the log entry's body",
                Reason.INVALID_BUNDLE), "canonicalizedBody", Reason.INVALID_BUNDLE);
        if (!body.string("kind").equals("dsse")) {
            throw failure("the entry's body is of kind " + body.string("kind") + ", not dsse");
        }
        JsonObject spec = body.object("spec");
        JsonObject payloadHash = spec.object("payloadHash");
        if (!payloadHash.string("algorithm").equals("sha256")
                || !payloadHash.string("value").equalsIgnoreCase(Hex.encode(sha256(payload)))) {
            throw failure("the log entry records another payload than the bundle's");
        }
        String pem = Pem.encode("CERTIFICATE", encoded(certificate));
        for (JsonObject recorded : spec.objects("signatures")) {
            byte[] verifier = recorded.base64("verifier");
            byte[] sig = recorded.base64("signature");
            if (Arrays.equals(sig, signature) && samePem(verifier, pem, certificate)) {
                return;
            }
        }
        throw failure("the log entry records another signature or certificate than the bundle's");
    }

    private static boolean samePem(byte[] recorded, String pem, X509Certificate certificate) {
        String text = new String(recorded, StandardCharsets.UTF_8);
        if (text.strip().equals(pem.strip())) {
            return true;
        }
        // the same certificate, whatever the PEM's line breaks
        List<Pem.Block> blocks = Pem.blocks(text);
        return blocks.size() == 1 && Arrays.equals(blocks.get(0).der(), encoded(certificate));
    }

    /** The log's signature over the canonical JSON of body, integrated time, log id and index. */
    private static void checkSignedEntryTimestamp(Bundle.TlogEntry entry, byte[] set, TrustedRoot.Log log)
            throws SigningException {
        // RFC 8785 canonical form: names sorted, no spaces; every value here is a plain number or Base64/hex text
        String canonical = "{\"body\":\"" + Base64.getEncoder().encodeToString(entry.canonicalizedBody())
                + "\",\"integratedTime\":" + entry.integratedTime() + ",\"logID\":\"" + Hex.encode(entry.logId())
                + "\",\"logIndex\":" + entry.logIndex() + "}";
        if (!verifies(log.key(), canonical.getBytes(StandardCharsets.UTF_8), set)) {
            throw failure("the signed entry timestamp of entry " + entry.logIndex() + " does not verify with log "
                    + log.baseUrl() + "'s key");
        }
    }

    /** RFC 9162's inclusion proof, then the checkpoint that signs its root. */
    private static void checkInclusion(Bundle.TlogEntry entry, Bundle.InclusionProof proof, TrustedRoot.Log log)
            throws SigningException {
        if (proof.logIndex() >= proof.treeSize()) {
            throw failure("the inclusion proof's index " + proof.logIndex() + " is not below its tree size "
                    + proof.treeSize());
        }
        byte[] hash = hashLeaf(entry.canonicalizedBody());
        long index = proof.logIndex();
        long last = proof.treeSize() - 1;
        for (byte[] sibling : proof.hashes()) {
            if (last == 0) {
                throw failure("the inclusion proof has more hashes than its tree's height");
            }
            if ((index & 1) == 1 || index == last) {
                hash = hashChildren(sibling, hash);
                while ((index & 1) == 0 && index != 0) {
                    index >>= 1;
                    last >>= 1;
                }
            } else {
                hash = hashChildren(hash, sibling);
            }
            index >>= 1;
            last >>= 1;
        }
        if (last != 0 || !MessageDigest.isEqual(hash, proof.rootHash())) {
            throw failure("the inclusion proof of entry " + entry.logIndex() + " does not lead to its root hash");
        }
        checkCheckpoint(proof, log);
    }

    /**
     * A checkpoint is a signed note: origin, tree size, Base64 root hash (and optional lines), a blank line, then
     * signature lines {@code — name Base64(key hint + signature)} over the text before the blank line.
     */
    private static void checkCheckpoint(Bundle.InclusionProof proof, TrustedRoot.Log log) throws SigningException {
        String note = proof.checkpoint();
        int split = note.indexOf("\n\n");
        if (split < 0) {
            throw failure("the checkpoint is not a signed note");
        }
        String text = note.substring(0, split + 1);
        String[] lines = text.split("\n");
        if (lines.length < 3 || !lines[1].equals(Long.toString(proof.treeSize()))
                || !lines[2].equals(Base64.getEncoder().encodeToString(proof.rootHash()))) {
            throw failure("the checkpoint names another tree than the inclusion proof's");
        }
        byte[] signed = text.getBytes(StandardCharsets.UTF_8);
        for (String line : note.substring(split + 2).split("\n")) {
            byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
            if (!startsWith(bytes, NOTE_SIGNATURE_PREFIX)) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            byte[] hintAndSignature;
            try {
                hintAndSignature = Base64.getDecoder().decode(line.substring(space + 1));
            } catch (IllegalArgumentException e) {
                continue;
            }
            if (hintAndSignature.length > 4 && verifies(log.key(), signed,
                    Arrays.copyOfRange(hintAndSignature, 4, hintAndSignature.length))) {
                return;
            }
        }
        throw failure("no signature of the checkpoint verifies with log " + log.baseUrl() + "'s key");
    }

    private static boolean verifies(PublicKey key, byte[] data, byte[] signature) throws SigningException {
        String algorithm = key.getAlgorithm().equals("EC") ? EcKeys.signatureAlgorithm(key) : "Ed25519";
        return Signatures.verifies(key, algorithm, data, signature, Reason.INVALID_TRUST_ROOT);
    }

    private static byte[] hashLeaf(byte[] leaf) {
        MessageDigest sha = sha256();
        sha.update((byte) 0);
        return sha.digest(leaf);
    }

    private static byte[] hashChildren(byte[] left, byte[] right) {
        MessageDigest sha = sha256();
        sha.update((byte) 1);
        sha.update(left);
        return sha.digest(right);
    }

    private static byte[] sha256(byte[] bytes) {
        return sha256().digest(bytes);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    private static boolean startsWith(byte[] bytes, byte[] prefix) {
        return bytes.length >= prefix.length && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
    }

    private static byte[] encoded(X509Certificate certificate) {
        try {
            return certificate.getEncoded();
        } catch (CertificateEncodingException e) {
            throw new IllegalArgumentException("a certificate that cannot be encoded", e);
        }
    }

    private static SigningException failure(String detail) {
        return new SigningException(Reason.TRANSPARENCY_LOG, detail);
    }
}
