package dev.safetensors.signing.testing;

import dev.safetensors.signing.ModelFiles;
import dev.safetensors.signing.ModelSigner;
import dev.safetensors.signing.Serialization;
import dev.safetensors.signing.SigningKeys;
import dev.safetensors.signing.SigstoreTrustRoot;
import dev.safetensors.signing.internal.BundleCodec;
import dev.safetensors.signing.internal.Der;
import dev.safetensors.signing.internal.Dsse;
import dev.safetensors.signing.internal.Hex;
import dev.safetensors.signing.internal.Json;
import dev.safetensors.signing.internal.Pem;
import dev.safetensors.signing.internal.StatementCodec;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A Sigstore of our own (the test CA, log key and timestamp authority of {@code sigstore/} beside this class, made
 * by {@code make-test-sigstore.sh}): writes a trusted root naming them and keyless bundles as Sigstore clients write
 * them, with real signatures, log entries, inclusion proofs, checkpoints and RFC 3161 timestamps, so each part of
 * keyless verification can be exercised, and broken one at a time. Shared with the command's tests through this
 * module's test-jar.
 */
public final class TestSigstore {
    /** The email identity of {@code leaf-email}. */
    public static final String EMAIL = "alice@example.com";
    /** The OIDC issuer {@code leaf-email} records in both Fulcio extensions. */
    public static final String EMAIL_ISSUER = "https://issuer.example.com";
    /** The workload (URI) identity of {@code leaf-uri}. */
    public static final String URI = "https://github.com/example/models/.github/workflows/sign.yml@refs/heads/main";
    /** The OIDC issuer {@code leaf-uri} records in the deprecated extension only. */
    public static final String URI_ISSUER = "https://token.actions.githubusercontent.com";
    /** Within the signing certificates' ten minutes (12:00 to 12:10 UTC on 2025-03-01). */
    public static final Instant SIGNED_AT = Instant.parse("2025-03-01T12:01:30Z");

    /** The CA's root. */
    public final X509Certificate fulcioRoot;
    final X509Certificate fulcioIntermediate;
    final X509Certificate tsa;
    final X509Certificate tsaRoot;
    final PrivateKey tsaKey;
    final PublicKey rekorPublic;
    final PrivateKey rekorKey;

    /**
     * Reads the test CA, log and timestamp authority.
     *
     * @throws Exception if the test material does not read
     */
    public TestSigstore() throws Exception {
        fulcioRoot = certificate("fulcio-root.pem");
        fulcioIntermediate = certificate("fulcio-int.pem");
        tsa = certificate("tsa.pem");
        tsaRoot = certificate("tsa-root.pem");
        tsaKey = SigningKeys.readPrivateKey(resource("tsa-key.pem"));
        rekorKey = SigningKeys.readPrivateKey(resource("rekor-key.pem"));
        rekorPublic = SigningKeys.readPublicKey(resource("rekor-pub.pem"));
    }

    private static String resource(String name) throws java.io.IOException {
        try (java.io.InputStream in = TestSigstore.class.getResourceAsStream("sigstore/" + name)) {
            if (in == null) {
                throw new java.io.IOException("no test resource sigstore/" + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static X509Certificate certificate(String name) throws Exception {
        return SigningKeys.readCertificates(resource(name)).get(0);
    }

    static PrivateKey leafKey(String leaf) throws Exception {
        return SigningKeys.readPrivateKey(resource("leaf-" + leaf + "-key.pem"));
    }

    /** @return the log id of a log key: SHA-256 of its DER public key */
    static byte[] logId(PublicKey key) throws GeneralSecurityException {
        return MessageDigest.getInstance("SHA-256").digest(key.getEncoded());
    }

    /**
     * @param caEnd when the CA stops being trusted (RFC 3339), or null for never
     * @return the trusted root naming our CA, log and TSA, each valid from 2025-01-01
     */
    public byte[] trustedRoot(String caEnd) {
        Base64.Encoder b64 = Base64.getEncoder();
        return Json.write(g -> {
            g.writeStartObject();
            g.writeStringProperty("mediaType", "application/vnd.dev.sigstore.trustedroot+json;version=0.1");
            g.writeArrayPropertyStart("tlogs");
            g.writeStartObject();
            g.writeStringProperty("baseUrl", "https://rekor.test.example");
            g.writeStringProperty("hashAlgorithm", "SHA2_256");
            g.writeObjectPropertyStart("publicKey");
            g.writeStringProperty("rawBytes", b64.encodeToString(rekorPublic.getEncoded()));
            g.writeStringProperty("keyDetails", "PKIX_ECDSA_P256_SHA_256");
            g.writeObjectPropertyStart("validFor");
            g.writeStringProperty("start", "2025-01-01T00:00:00Z");
            g.writeEndObject();
            g.writeEndObject();
            g.writeObjectPropertyStart("logId");
            g.writeStringProperty("keyId", b64.encodeToString(unchecked(() -> logId(rekorPublic))));
            g.writeEndObject();
            g.writeEndObject();
            g.writeEndArray();
            g.writeArrayPropertyStart("certificateAuthorities");
            authority(g, "https://fulcio.test.example", List.of(fulcioIntermediate, fulcioRoot), caEnd);
            g.writeEndArray();
            g.writeArrayPropertyStart("timestampAuthorities");
            authority(g, "https://tsa.test.example", List.of(tsa, tsaRoot), null);
            g.writeEndArray();
            g.writeEndObject();
        });
    }

    private static void authority(tools.jackson.core.JsonGenerator g, String uri, List<X509Certificate> chain,
                                  String end) {
        g.writeStartObject();
        g.writeStringProperty("uri", uri);
        g.writeObjectPropertyStart("certChain");
        g.writeArrayPropertyStart("certificates");
        for (X509Certificate c : chain) {
            g.writeStartObject();
            g.writeStringProperty("rawBytes", Base64.getEncoder().encodeToString(unchecked(c::getEncoded)));
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
        g.writeObjectPropertyStart("validFor");
        g.writeStringProperty("start", "2025-01-01T00:00:00Z");
        if (end != null) {
            g.writeStringProperty("end", end);
        }
        g.writeEndObject();
        g.writeEndObject();
    }

    /**
     * @return our trusted root, parsed
     * @throws Exception if it does not parse
     */
    public SigstoreTrustRoot root() throws Exception {
        return SigstoreTrustRoot.parse(trustedRoot(null));
    }

    /** How one bundle is made; each field breaks or leaves out one part. */
    public static final class Options {
        /** which signing certificate: {@code email} or {@code uri} */
        public String leaf = "email";
        /** the bundle's media type; before v0.3 the certificate is written as a chain */
        public String mediaType = BundleCodec.MEDIA_TYPE;
        /** whether the entry carries the log's signed entry timestamp */
        public boolean signedEntryTimestamp = true;
        /** whether the entry carries an inclusion proof */
        public boolean inclusionProof = true;
        /** whether the bundle carries an RFC 3161 timestamp */
        public boolean timestamp = true;
        /** whether the bundle carries a log entry at all */
        public boolean tlogEntry = true;
        /** when the log says it integrated the entry */
        public Instant integratedTime = SIGNED_AT;
        /** when the timestamp authority says it stamped the signature */
        public Instant timestampTime = SIGNED_AT;
        /** signs the log entry's promise and checkpoint; null for the log's key */
        public PrivateKey logKey;
        /** signs the checkpoint only; null for {@link #logKey} */
        public PrivateKey checkpointKey;
        /** the log id the entry names; null for the log's */
        public byte[] logId;
        /** signs the timestamp; null for the TSA's key */
        public PrivateKey tsaKey;
        /** the bytes the timestamp stamps; null for the signature */
        public byte[] stamped;
        /** changes the log entry's body after signing (null: none) */
        public UnaryOperator<String> body;
        /** whether to flip a bit of the inclusion proof's first hash */
        public boolean breakProof;
        /** the payload the envelope carries in place of the signed one; null for the signed one */
        public byte[] payloadInEnvelope;

        /**
         * @param change what to change
         * @return these options, changed
         */
        public Options with(java.util.function.Consumer<Options> change) {
            change.accept(this);
            return this;
        }
    }

    /** @return the options of a bundle where every part holds */
    public static Options options() {
        return new Options();
    }

    /**
     * @param payload the statement to sign
     * @param o       how to make the bundle
     * @return the bundle's JSON
     * @throws Exception if it cannot be made
     */
    public byte[] bundle(byte[] payload, Options o) throws Exception {
        X509Certificate leaf = certificate("leaf-" + o.leaf + ".pem");
        byte[] signature = sign(leafKey(o.leaf), "SHA256withECDSA",
                Dsse.pae(BundleCodec.IN_TOTO_PAYLOAD_TYPE, payload));
        PrivateKey logKey = o.logKey != null ? o.logKey : rekorKey;
        byte[] logId = o.logId != null ? o.logId : logId(rekorPublic);

        String pem = Pem.encode("CERTIFICATE", leaf.getEncoded());
        String bodyText = "{\"apiVersion\":\"0.0.1\",\"kind\":\"dsse\",\"spec\":{\"envelopeHash\":{\"algorithm\":"
                + "\"sha256\",\"value\":\"" + Hex.encode(sha256(payload)) + "\"},\"payloadHash\":{\"algorithm\":"
                + "\"sha256\",\"value\":\"" + Hex.encode(sha256(payload)) + "\"},\"signatures\":[{\"signature\":\""
                + b64(signature) + "\",\"verifier\":\"" + b64(pem.getBytes(StandardCharsets.UTF_8)) + "\"}]}}";
        if (o.body != null) {
            bodyText = o.body.apply(bodyText);
        }
        byte[] body = bodyText.getBytes(StandardCharsets.UTF_8);
        long logIndex = 1234567;
        long integrated = o.integratedTime.getEpochSecond();
        byte[] set = sign(logKey, "SHA256withECDSA", ("{\"body\":\"" + b64(body) + "\",\"integratedTime\":"
                + integrated + ",\"logID\":\"" + Hex.encode(logId) + "\",\"logIndex\":" + logIndex + "}")
                .getBytes(StandardCharsets.UTF_8));

        // a tree of five leaves with ours at index 3
        List<byte[]> leaves = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            leaves.add(i == 3 ? body : ("other entry " + i).getBytes(StandardCharsets.UTF_8));
        }
        byte[] rootHash = treeHash(leaves);
        List<byte[]> path = auditPath(3, leaves);
        if (o.breakProof) {
            path.get(0)[0] ^= 1;
        }
        String noteText = "rekor.test.example - 42\n5\n" + b64(rootHash) + "\n";
        byte[] noteSignature = sign(o.checkpointKey != null ? o.checkpointKey : logKey, "SHA256withECDSA",
                noteText.getBytes(StandardCharsets.UTF_8));
        byte[] hinted = new byte[4 + noteSignature.length];
        System.arraycopy(logId, 0, hinted, 0, 4);
        System.arraycopy(noteSignature, 0, hinted, 4, noteSignature.length);
        String checkpoint = noteText + "\n\u2014 rekor.test.example " + b64(hinted) + "\n";

        byte[] timestamp = o.timestamp ? timestampResponse(o.stamped != null ? o.stamped : signature,
                o.timestampTime, o.tsaKey != null ? o.tsaKey : tsaKey) : null;
        byte[] envelopePayload = o.payloadInEnvelope != null ? o.payloadInEnvelope : payload;

        return Json.write(g -> {
            g.writeStartObject();
            g.writeStringProperty("mediaType", o.mediaType);
            g.writeObjectPropertyStart("verificationMaterial");
            if (o.mediaType.equals(BundleCodec.MEDIA_TYPE)) {
                g.writeObjectPropertyStart("certificate");
                g.writeStringProperty("rawBytes", b64(unchecked(leaf::getEncoded)));
                g.writeEndObject();
            } else {
                g.writeObjectPropertyStart("x509CertificateChain");
                g.writeArrayPropertyStart("certificates");
                for (X509Certificate c : List.of(leaf, fulcioIntermediate)) {
                    g.writeStartObject();
                    g.writeStringProperty("rawBytes", b64(unchecked(c::getEncoded)));
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeArrayPropertyStart("tlogEntries");
            if (o.tlogEntry) {
                g.writeStartObject();
                g.writeStringProperty("logIndex", Long.toString(logIndex));
                g.writeObjectPropertyStart("logId");
                g.writeStringProperty("keyId", b64(logId));
                g.writeEndObject();
                g.writeObjectPropertyStart("kindVersion");
                g.writeStringProperty("kind", "dsse");
                g.writeStringProperty("version", "0.0.1");
                g.writeEndObject();
                g.writeStringProperty("integratedTime", Long.toString(integrated));
                if (o.signedEntryTimestamp) {
                    g.writeObjectPropertyStart("inclusionPromise");
                    g.writeStringProperty("signedEntryTimestamp", b64(set));
                    g.writeEndObject();
                }
                if (o.inclusionProof) {
                    g.writeObjectPropertyStart("inclusionProof");
                    g.writeStringProperty("logIndex", "3");
                    g.writeStringProperty("rootHash", b64(rootHash));
                    g.writeStringProperty("treeSize", "5");
                    g.writeArrayPropertyStart("hashes");
                    for (byte[] h : path) {
                        g.writeString(b64(h));
                    }
                    g.writeEndArray();
                    g.writeObjectPropertyStart("checkpoint");
                    g.writeStringProperty("envelope", checkpoint);
                    g.writeEndObject();
                    g.writeEndObject();
                }
                g.writeStringProperty("canonicalizedBody", b64(body));
                g.writeEndObject();
            }
            g.writeEndArray();
            if (timestamp != null) {
                g.writeObjectPropertyStart("timestampVerificationData");
                g.writeArrayPropertyStart("rfc3161Timestamps");
                g.writeStartObject();
                g.writeStringProperty("signedTimestamp", b64(timestamp));
                g.writeEndObject();
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndObject();
            g.writeObjectPropertyStart("dsseEnvelope");
            g.writeStringProperty("payload", b64(envelopePayload));
            g.writeStringProperty("payloadType", BundleCodec.IN_TOTO_PAYLOAD_TYPE);
            g.writeArrayPropertyStart("signatures");
            g.writeStartObject();
            g.writeStringProperty("sig", b64(signature));
            g.writeEndObject();
            g.writeEndArray();
            g.writeEndObject();
            g.writeEndObject();
        });
    }

    /**
     * @param model a model folder or file
     * @return the statement over it, as the signer writes it
     * @throws Exception if it cannot be hashed
     */
    public static byte[] statement(java.nio.file.Path model) throws Exception {
        java.security.KeyPairGenerator generator = java.security.KeyPairGenerator.getInstance("EC");
        generator.initialize(new java.security.spec.ECGenParameterSpec("secp256r1"));
        java.security.KeyPair keys = generator.generateKeyPair();
        return StatementCodec.write(ModelSigner.withKey(keys).sign(ModelFiles.of(model), Serialization.files())
                .manifest());
    }

    // RFC 6962 Merkle tree hashing, written out for the test (the verifier only recomputes a path)

    private static byte[] treeHash(List<byte[]> leaves) throws GeneralSecurityException {
        if (leaves.size() == 1) {
            return leafHash(leaves.get(0));
        }
        int k = Integer.highestOneBit(leaves.size() - 1);
        return nodeHash(treeHash(leaves.subList(0, k)), treeHash(leaves.subList(k, leaves.size())));
    }

    private static List<byte[]> auditPath(int index, List<byte[]> leaves) throws GeneralSecurityException {
        List<byte[]> path = new ArrayList<>();
        if (leaves.size() <= 1) {
            return path;
        }
        int k = Integer.highestOneBit(leaves.size() - 1);
        if (index < k) {
            path.addAll(auditPath(index, leaves.subList(0, k)));
            path.add(treeHash(leaves.subList(k, leaves.size())));
        } else {
            path.addAll(auditPath(index - k, leaves.subList(k, leaves.size())));
            path.add(treeHash(leaves.subList(0, k)));
        }
        return path;
    }

    private static byte[] leafHash(byte[] leaf) throws GeneralSecurityException {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        sha.update((byte) 0);
        return sha.digest(leaf);
    }

    private static byte[] nodeHash(byte[] left, byte[] right) throws GeneralSecurityException {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        sha.update((byte) 1);
        sha.update(left);
        return sha.digest(right);
    }

    // RFC 3161: a TimeStampResp as a timestamp authority answers, signed with ECDSA over the signed attributes

    private byte[] timestampResponse(byte[] stamped, Instant time, PrivateKey key) throws Exception {
        byte[] sha256Algorithm = Der.encode(Der.SEQUENCE, oid("2.16.840.1.101.3.4.2.1"));
        byte[] tstInfo = Der.encode(Der.SEQUENCE,
                Der.encode(Der.INTEGER, new byte[]{1}),
                oid("1.3.6.1.4.1.57264.2"),
                Der.encode(Der.SEQUENCE, sha256Algorithm, Der.encode(Der.OCTET_STRING, sha256(stamped))),
                Der.encode(Der.INTEGER, new byte[]{0x12, 0x34}),
                Der.encode(0x18, DateTimeFormatter.ofPattern("yyyyMMddHHmmss'Z'").withZone(ZoneOffset.UTC)
                        .format(time).getBytes(StandardCharsets.US_ASCII)));
        byte[] attributes = concat(
                Der.encode(Der.SEQUENCE, oid("1.2.840.113549.1.9.3"),
                        Der.encode(0x31, oid("1.2.840.113549.1.9.16.1.4"))),
                Der.encode(Der.SEQUENCE, oid("1.2.840.113549.1.9.4"),
                        Der.encode(0x31, Der.encode(Der.OCTET_STRING, sha256(tstInfo)))));
        byte[] signature = sign(key, "SHA256withECDSA", Der.encode(0x31, attributes));
        byte[] signerInfo = Der.encode(Der.SEQUENCE,
                Der.encode(Der.INTEGER, new byte[]{1}),
                Der.encode(Der.SEQUENCE, tsa.getIssuerX500Principal().getEncoded(),
                        Der.encode(Der.INTEGER, tsa.getSerialNumber().toByteArray())),
                sha256Algorithm,
                Der.encode(0xa0, attributes),
                Der.encode(Der.SEQUENCE, oid("1.2.840.10045.4.3.2")),
                Der.encode(Der.OCTET_STRING, signature));
        byte[] signedData = Der.encode(Der.SEQUENCE,
                Der.encode(Der.INTEGER, new byte[]{3}),
                Der.encode(0x31, sha256Algorithm),
                Der.encode(Der.SEQUENCE, oid("1.2.840.113549.1.9.16.1.4"),
                        Der.encode(0xa0, Der.encode(Der.OCTET_STRING, tstInfo))),
                Der.encode(0xa0, tsa.getEncoded()),
                Der.encode(0x31, signerInfo));
        byte[] token = Der.encode(Der.SEQUENCE, oid("1.2.840.113549.1.7.2"), Der.encode(0xa0, signedData));
        return Der.encode(Der.SEQUENCE, Der.encode(Der.SEQUENCE, Der.encode(Der.INTEGER, new byte[]{0})), token);
    }

    private static byte[] oid(String dotted) {
        String[] arcs = dotted.split("\\.");
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.write(Integer.parseInt(arcs[0]) * 40 + Integer.parseInt(arcs[1]));
        for (int i = 2; i < arcs.length; i++) {
            BigInteger arc = new BigInteger(arcs[i]);
            int groups = Math.max(1, (arc.bitLength() + 6) / 7);
            for (int j = groups - 1; j >= 0; j--) {
                int bits = arc.shiftRight(7 * j).intValue() & 0x7f;
                out.write(j > 0 ? bits | 0x80 : bits);
            }
        }
        return Der.encode(0x06, out.toByteArray());
    }

    static byte[] sign(PrivateKey key, String algorithm, byte[] data) throws GeneralSecurityException {
        Signature s = Signature.getInstance(algorithm);
        s.initSign(key);
        s.update(data);
        return s.sign();
    }

    static byte[] sha256(byte[] data) throws GeneralSecurityException {
        return MessageDigest.getInstance("SHA-256").digest(data);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static String b64(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }

    /** Something that throws a checked exception, inside a JSON writer that takes none. */
    interface Checked<T> {
        T get() throws Exception;
    }

    static <T> T unchecked(Checked<T> supplier) {
        try {
            return supplier.get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
