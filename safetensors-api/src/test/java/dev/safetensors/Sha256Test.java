package dev.safetensors;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The one SHA-256 recogniser, its canonical form, and the identity that keeps a reported digest in that form. */
class Sha256Test {
    private static final String LOWER = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    private static final String UPPER = LOWER.toUpperCase(java.util.Locale.ROOT);
    /** A Git blob's SHA-1: the Hub's ETag of a file that is not in LFS. */
    private static final String SHA1 = "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3";

    @Test
    void theRecogniserTakesSixtyFourHexDigitsOfEitherCaseOnly() {
        assertTrue(Sha256.isHex(LOWER));
        assertTrue(Sha256.isHex(UPPER));
        assertFalse(Sha256.isHex(SHA1));
        assertFalse(Sha256.isHex(null));
        assertFalse(Sha256.isHex("\"" + LOWER + "\""));
        assertFalse(Sha256.isHex(LOWER.substring(1) + "g"));
        // Character.digit takes these for hex digits; a digest is ASCII
        assertFalse(Sha256.isHex(LOWER.substring(1) + "\uFF10"));
    }

    @Test
    void aReportedDigestInQuotesAndUpperCaseIsCanonical() {
        assertEquals(Optional.of(LOWER), Sha256.canonical("\"" + UPPER + "\""));
        assertEquals(Optional.of(LOWER), Sha256.canonical("  " + UPPER + " "));
        assertEquals(Optional.of(LOWER), Sha256.canonical(LOWER));
    }

    @Test
    void aValueThatIsNoSha256IsNoDigest() {
        assertEquals(Optional.empty(), Sha256.canonical("\"" + SHA1 + "\""));
        assertEquals(Optional.empty(), Sha256.canonical("W/\"" + LOWER + "\""), "a weak ETag names no content");
        assertEquals(Optional.empty(), Sha256.canonical("\"d41d8cd98f00b204e9800998ecf8427e-2\""), "a multipart ETag");
        assertEquals(Optional.empty(), Sha256.canonical(""));
        assertEquals(Optional.empty(), Sha256.canonical(null));
    }

    @Test
    void theIdentityKeepsTheReportedDigestNormalised() {
        SourceIdentity quoted = new SourceIdentity("\"e\"", null, "acme/m", "c0ffee", "\"" + UPPER + "\"");
        assertEquals(LOWER, quoted.linkedSha256());
        assertEquals(LOWER, quoted.toAttributes().get(SourceIdentity.LINKED_SHA256));
        assertEquals(LOWER, SourceIdentity.of(Map.of(SourceIdentity.LINKED_SHA256, UPPER)).linkedSha256());
        assertEquals("\"e\"", quoted.etag(), "the ETag is kept as the store sent it");
    }

    @Test
    void theIdentityDropsAReportedValueThatIsNoSha256() {
        SourceIdentity gitBlob = new SourceIdentity("\"" + SHA1 + "\"", null, "acme/m", "c0ffee", "\"" + SHA1 + "\"");
        assertNull(gitBlob.linkedSha256());
        assertFalse(gitBlob.toAttributes().containsKey(SourceIdentity.LINKED_SHA256));
    }

    @Test
    void theDigestFactoryMakesSha256() {
        byte[] test = "test".getBytes(StandardCharsets.UTF_8);
        assertEquals(LOWER, HexFormat.of().formatHex(Sha256.newDigest().digest(test)));
    }
}
