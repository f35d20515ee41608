package dev.safetensors.signing.internal;

import dev.safetensors.signing.SigningException;
import dev.safetensors.signing.SigningException.Reason;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;

/**
 * Checks an RFC 3161 timestamp over a signature, offline: the CMS SignedData's TSTInfo must hold the hash of the
 * signature bytes, its signed attributes must hold the hash of the TSTInfo and be signed by a timestamp authority
 * of the trusted root, whose chain is valid at the time the token states. That time is then one the signing
 * certificate is checked at.
 *
 * <p>Only what this needs of CMS is decoded, on {@link Der}: a token whose structure differs is refused, never
 * skipped.
 */
public final class Rfc3161Timestamps {
    private static final byte[] SIGNED_DATA = oid(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02);
    private static final byte[] TST_INFO = oid(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x10, 0x01, 0x04);
    private static final byte[] MESSAGE_DIGEST = oid(0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x04);
    private static final byte[] SHA256 = oid(0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01);
    private static final byte[] SHA384 = oid(0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02);
    private static final byte[] SHA512 = oid(0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03);
    private static final int CONTEXT_0 = 0xa0;
    private static final int SET = 0x31;
    private static final int GENERALIZED_TIME = 0x18;

    private Rfc3161Timestamps() {
    }

    /**
     * @param timestamp a DER TimeStampResp or TimeStampToken (as bundles carry either)
     * @param signature the signature bytes it must stamp
     * @param root      the trusted root naming the timestamp authorities
     * @return the time the authority states
     * @throws SigningException {@link Reason#TIMESTAMP} if it does not stamp this signature or is not signed by a
     *                          trusted timestamp authority valid at that time
     */
    public static Instant verify(byte[] timestamp, byte[] signature, TrustedRoot root) throws SigningException {
        Token token;
        try {
            token = decode(timestamp);
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw failure("the timestamp is not a DER RFC 3161 token: " + e.getMessage());
        }
        if (!MessageDigest.isEqual(token.imprint, digest(token.imprintAlgorithm, signature))) {
            throw failure("the timestamp stamps other bytes than the bundle's signature");
        }
        if (!MessageDigest.isEqual(token.messageDigest, digest(token.digestAlgorithm, token.tstInfo))) {
            throw failure("the timestamp's signed attributes do not hold the hash of its content");
        }
        for (TrustedRoot.Authority tsa : root.timestampAuthorities()) {
            X509Certificate signer = tsa.chain().get(0);
            if (tsa.validity().contains(token.time) && verifies(signer.getPublicKey(), token.digestAlgorithm,
                    token.signedAttributes, token.signature)) {
                CertificateChains.validateAt(tsa.chain(), token.time, Reason.TIMESTAMP);
                return token.time;
            }
        }
        throw failure("the timestamp of " + token.time + " is not signed by a timestamp authority of the trusted"
                + " root valid then");
    }

    private record Token(byte[] tstInfo, byte[] imprintAlgorithm, byte[] imprint, Instant time,
                         byte[] digestAlgorithm, byte[] messageDigest, byte[] signedAttributes, byte[] signature) {
    }

    private static Token decode(byte[] der) {
        List<Der.Element> top = Der.children(Der.single(der).content());
        // a TimeStampResp is SEQUENCE { PKIStatusInfo SEQUENCE { status INTEGER ... }, token }; a token begins
        // with the signed-data OID
        List<Der.Element> contentInfo = top.get(0).tag() == Der.SEQUENCE
                ? Der.children(expect(top.get(1), Der.SEQUENCE).content()) : top;
        if (!Arrays.equals(contentInfo.get(0).encoded(), SIGNED_DATA)) {
            throw new IllegalArgumentException("not a CMS SignedData");
        }
        List<Der.Element> signedData = Der.children(expect(Der.single(expect(contentInfo.get(1), CONTEXT_0)
                .content()), Der.SEQUENCE).content());
        List<Der.Element> encapsulated = Der.children(expect(signedData.get(2), Der.SEQUENCE).content());
        if (!Arrays.equals(encapsulated.get(0).encoded(), TST_INFO)) {
            throw new IllegalArgumentException("the signed content is not a TSTInfo");
        }
        byte[] tstInfo = expect(Der.single(expect(encapsulated.get(1), CONTEXT_0).content()), Der.OCTET_STRING)
                .content();
        List<Der.Element> info = Der.children(Der.single(tstInfo).content());
        List<Der.Element> imprint = Der.children(expect(info.get(2), Der.SEQUENCE).content());
        byte[] imprintAlgorithm = algorithm(imprint.get(0));
        byte[] hashed = expect(imprint.get(1), Der.OCTET_STRING).content();
        Instant time = generalizedTime(expect(info.get(4), GENERALIZED_TIME).content());

        List<Der.Element> signerInfos = Der.children(expect(signedData.get(signedData.size() - 1), SET).content());
        if (signerInfos.size() != 1) {
            throw new IllegalArgumentException("expected one signer, found " + signerInfos.size());
        }
        List<Der.Element> signer = Der.children(expect(signerInfos.get(0), Der.SEQUENCE).content());
        byte[] digestAlgorithm = algorithm(signer.get(2));
        Der.Element attributes = expect(signer.get(3), CONTEXT_0);
        byte[] messageDigest = null;
        for (Der.Element attribute : Der.children(attributes.content())) {
            List<Der.Element> parts = Der.children(expect(attribute, Der.SEQUENCE).content());
            if (Arrays.equals(parts.get(0).encoded(), MESSAGE_DIGEST)) {
                messageDigest = expect(Der.single(expect(parts.get(1), SET).content()), Der.OCTET_STRING).content();
            }
        }
        if (messageDigest == null) {
            throw new IllegalArgumentException("the signer has no message-digest attribute");
        }
        // the signature covers the attributes encoded as a SET, not with the [0] tag they are stored under
        byte[] signedAttributes = Der.encode(SET, attributes.content());
        byte[] signature = expect(signer.get(5), Der.OCTET_STRING).content();
        return new Token(tstInfo, imprintAlgorithm, hashed, time, digestAlgorithm, messageDigest, signedAttributes,
                signature);
    }

    private static Der.Element expect(Der.Element element, int tag) {
        if (element.tag() != tag) {
            throw new IllegalArgumentException("expected tag " + Integer.toHexString(tag) + ", found "
                    + Integer.toHexString(element.tag()));
        }
        return element;
    }

    /** @return the encoded OID of an AlgorithmIdentifier */
    private static byte[] algorithm(Der.Element identifier) {
        return Der.children(expect(identifier, Der.SEQUENCE).content()).get(0).encoded();
    }

    private static Instant generalizedTime(byte[] content) {
        String text = new String(content, StandardCharsets.US_ASCII);
        if (!text.endsWith("Z") || text.length() < 15) {
            throw new IllegalArgumentException("the time is not a UTC GeneralizedTime");
        }
        try {
            // a fraction of a second, if any, is dropped: certificate validity is in whole seconds
            return LocalDateTime.parse(text.substring(0, 14), DateTimeFormatter.ofPattern("yyyyMMddHHmmss"))
                    .toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("the time " + text + " is not a GeneralizedTime");
        }
    }

    private static byte[] digest(byte[] algorithm, byte[] data) throws SigningException {
        try {
            return MessageDigest.getInstance(jcaDigest(algorithm)).digest(data);
        } catch (GeneralSecurityException e) {
            throw failure("the JDK lacks the timestamp's digest algorithm");
        }
    }

    private static String jcaDigest(byte[] algorithm) throws SigningException {
        if (Arrays.equals(algorithm, SHA256)) {
            return "SHA-256";
        }
        if (Arrays.equals(algorithm, SHA384)) {
            return "SHA-384";
        }
        if (Arrays.equals(algorithm, SHA512)) {
            return "SHA-512";
        }
        throw failure("the timestamp uses a digest other than SHA-256, SHA-384 or SHA-512");
    }

    private static boolean verifies(PublicKey key, byte[] digestAlgorithm, byte[] data, byte[] signature)
            throws SigningException {
        String digest = jcaDigest(digestAlgorithm).replace("-", "");
        String algorithm = switch (key.getAlgorithm()) {
            case "EC" -> digest + "withECDSA";
            case "RSA" -> digest + "withRSA";
            default -> null;
        };
        return algorithm != null && Signatures.verifies(key, algorithm, data, signature, Reason.TIMESTAMP);
    }

    private static byte[] oid(int... content) {
        byte[] bytes = new byte[content.length];
        for (int i = 0; i < content.length; i++) {
            bytes[i] = (byte) content[i];
        }
        return Der.encode(0x06, bytes);
    }

    private static SigningException failure(String detail) {
        return new SigningException(Reason.TIMESTAMP, detail);
    }
}
