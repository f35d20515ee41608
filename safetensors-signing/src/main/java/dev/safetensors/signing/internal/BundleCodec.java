package dev.safetensors.signing.internal;

import dev.safetensors.signing.SigningException;
import dev.safetensors.signing.SigningException.Reason;
import tools.jackson.core.JsonGenerator;

import java.io.ByteArrayInputStream;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Reads and writes the Sigstore bundle JSON. Reading is strict about what verification depends on (media type,
 * envelope, signatures, verification material) and ignores fields it has no use for, as protobuf JSON readers do.
 */
public final class BundleCodec {
    /** The bundle media type this implementation writes. */
    public static final String MEDIA_TYPE = "application/vnd.dev.sigstore.bundle.v0.3+json";
    /** The DSSE payload type of an in-toto statement. */
    public static final String IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json";

    private static final Set<String> MEDIA_TYPES = Set.of(MEDIA_TYPE,
            "application/vnd.dev.sigstore.bundle+json;version=0.1",
            "application/vnd.dev.sigstore.bundle+json;version=0.2",
            "application/vnd.dev.sigstore.bundle+json;version=0.3");

    private BundleCodec() {
    }

    /**
     * @param json the bundle's bytes
     * @return the bundle
     * @throws SigningException {@link Reason#INVALID_BUNDLE} if it is not a Sigstore bundle with a DSSE envelope
     */
    public static Bundle read(byte[] json) throws SigningException {
        JsonObject bundle = JsonObject.of(Json.parse(json, "the bundle", Reason.INVALID_BUNDLE), "bundle",
                Reason.INVALID_BUNDLE);
        String mediaType = bundle.string("mediaType");
        if (!MEDIA_TYPES.contains(mediaType)) {
            throw bundle.invalid("mediaType", "is \"" + mediaType + "\", not a Sigstore bundle media type");
        }
        JsonObject verificationMaterial = bundle.object("verificationMaterial");
        Bundle.Material material = material(verificationMaterial);
        List<Bundle.TlogEntry> entries = new ArrayList<>();
        if (verificationMaterial.has("tlogEntries")) {
            for (JsonObject entry : verificationMaterial.objects("tlogEntries")) {
                entries.add(tlogEntry(entry));
            }
        }
        List<byte[]> timestamps = new ArrayList<>();
        if (verificationMaterial.has("timestampVerificationData")) {
            JsonObject data = verificationMaterial.object("timestampVerificationData");
            if (data.has("rfc3161Timestamps")) {
                for (JsonObject timestamp : data.objects("rfc3161Timestamps")) {
                    timestamps.add(timestamp.base64("signedTimestamp"));
                }
            }
        }
        if (material instanceof Bundle.CertificateChain chain && !entries.isEmpty()
                && !mediaType.equals(MEDIA_TYPE)) {
            // bundles v0.1 and v0.2 carry the Fulcio certificate (and its CA) as a chain; a log entry tells them
            // from the certificate method, whose bundles have none
            material = new Bundle.Keyless(chain.certificates().get(0));
        }
        JsonObject envelope = bundle.object("dsseEnvelope");
        List<byte[]> signatures = new ArrayList<>();
        for (JsonObject signature : envelope.objects("signatures")) {
            signatures.add(signature.base64("sig"));
        }
        if (signatures.isEmpty()) {
            throw envelope.invalid("signatures", "is empty");
        }
        return new Bundle(envelope.string("payloadType"), envelope.base64("payload"), List.copyOf(signatures),
                material, mediaType, List.copyOf(entries), List.copyOf(timestamps));
    }

    private static Bundle.TlogEntry tlogEntry(JsonObject entry) throws SigningException {
        JsonObject kindVersion = entry.object("kindVersion");
        Optional<byte[]> promise = Optional.empty();
        if (entry.has("inclusionPromise")) {
            promise = Optional.of(entry.object("inclusionPromise").base64("signedEntryTimestamp"));
        }
        Optional<Bundle.InclusionProof> proof = Optional.empty();
        if (entry.has("inclusionProof")) {
            JsonObject p = entry.object("inclusionProof");
            List<byte[]> hashes = new ArrayList<>();
            for (int i = 0; i < p.array("hashes").size(); i++) {
                hashes.add(p.base64(p.array("hashes").get(i), "hashes"));
            }
            proof = Optional.of(new Bundle.InclusionProof(p.wholeNumber("logIndex"), p.base64("rootHash"),
                    p.wholeNumber("treeSize"), List.copyOf(hashes), p.object("checkpoint").string("envelope")));
        }
        // protobuf's JSON writes int64 as strings, and omits zero: an entry at index 0 has no logIndex
        long logIndex = entry.has("logIndex") ? entry.wholeNumber("logIndex") : 0;
        long integratedTime = entry.has("integratedTime") ? entry.wholeNumber("integratedTime") : 0;
        return new Bundle.TlogEntry(logIndex, entry.object("logId").base64("keyId"), kindVersion.string("kind"),
                kindVersion.string("version"), integratedTime, promise, proof, entry.base64("canonicalizedBody"));
    }

    private static Bundle.Material material(JsonObject material) throws SigningException {
        if (material.has("publicKey")) {
            return new Bundle.KeyHint(material.object("publicKey").optionalString("hint"));
        }
        if (material.has("x509CertificateChain")) {
            List<X509Certificate> chain = new ArrayList<>();
            for (JsonObject certificate : material.object("x509CertificateChain").objects("certificates")) {
                chain.add(certificate(certificate.base64("rawBytes")));
            }
            if (chain.isEmpty()) {
                throw material.invalid("x509CertificateChain", "holds no certificate");
            }
            return new Bundle.CertificateChain(List.copyOf(chain));
        }
        if (material.has("certificate")) {
            return new Bundle.Keyless(certificate(material.object("certificate").base64("rawBytes")));
        }
        throw new SigningException(Reason.INVALID_BUNDLE,
                "bundle.verificationMaterial holds neither publicKey, x509CertificateChain nor certificate");
    }

    private static X509Certificate certificate(byte[] der) throws SigningException {
        try {
            return (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(der));
        } catch (CertificateException e) {
            throw new SigningException(Reason.INVALID_BUNDLE, "a certificate of the chain is not DER X.509", e);
        }
    }

    /**
     * @param payload   the signed statement
     * @param signature the DER ECDSA signature over its DSSE encoding
     * @param hint      the key hint, for a key bundle; empty for a certificate bundle
     * @param chain     the certificate chain, leaf first; empty for a key bundle
     * @return the bundle JSON
     */
    public static byte[] write(byte[] payload, byte[] signature, Optional<String> hint,
                               List<X509Certificate> chain) {
        Base64.Encoder base64 = Base64.getEncoder();
        return Json.write(g -> {
            g.writeStartObject();
            g.writeStringProperty("mediaType", MEDIA_TYPE);
            g.writeObjectPropertyStart("verificationMaterial");
            if (hint.isPresent()) {
                g.writeObjectPropertyStart("publicKey");
                g.writeStringProperty("hint", hint.get());
                g.writeEndObject();
            } else {
                g.writeObjectPropertyStart("x509CertificateChain");
                g.writeArrayPropertyStart("certificates");
                for (X509Certificate certificate : chain) {
                    g.writeStartObject();
                    g.writeStringProperty("rawBytes", base64.encodeToString(encoded(certificate)));
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            // the reference writes an empty list; no transparency log is involved in key or certificate signing
            g.writeArrayPropertyStart("tlogEntries");
            g.writeEndArray();
            g.writeEndObject();
            writeEnvelope(g, payload, signature);
            g.writeEndObject();
        });
    }

    private static void writeEnvelope(JsonGenerator g, byte[] payload, byte[] signature) {
        g.writeObjectPropertyStart("dsseEnvelope");
        g.writeStringProperty("payload", Base64.getEncoder().encodeToString(payload));
        g.writeStringProperty("payloadType", IN_TOTO_PAYLOAD_TYPE);
        g.writeArrayPropertyStart("signatures");
        g.writeStartObject();
        g.writeStringProperty("sig", Base64.getEncoder().encodeToString(signature));
        g.writeEndObject();
        g.writeEndArray();
        g.writeEndObject();
    }

    private static byte[] encoded(X509Certificate certificate) {
        try {
            return certificate.getEncoded();
        } catch (java.security.cert.CertificateEncodingException e) {
            throw new IllegalArgumentException("a certificate that cannot be encoded", e);
        }
    }
}
