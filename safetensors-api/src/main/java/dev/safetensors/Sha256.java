package dev.safetensors;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import java.util.Optional;

/**
 * The one rule of what a SHA-256 looks like and the one place a SHA-256 digest is made, for every module: the digest
 * a store reports (the Hub's {@code X-Linked-Etag}, the name of a blob in the Hugging Face cache), the one a user or
 * a manifest writes, and the one computed here are all recognised and compared in the same canonical form, 64
 * lower-case hex digits.
 */
public final class Sha256 {
    /** The length of a SHA-256 in hex: {@value} digits. */
    public static final int HEX_LENGTH = 64;

    private Sha256() {
    }

    /**
     * The recogniser: whether a text is a SHA-256 written in hex, as a user or a manifest may write it.
     *
     * @param text any text, or {@code null}
     * @return whether it is exactly {@value #HEX_LENGTH} ASCII hex digits (either case)
     */
    public static boolean isHex(String text) {
        if (text == null || text.length() != HEX_LENGTH) {
            return false;
        }
        for (int i = 0; i < HEX_LENGTH; i++) {
            char c = text.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
                return false;
            }
        }
        return true;
    }

    /**
     * The SHA-256 a store reported, in canonical form: surrounding white space and one pair of double quotes (an
     * ETag's) are removed and the hex is lower-cased. A weak ETag ({@code W/"..."}) names no content and is no
     * digest; nor is anything that is not {@value #HEX_LENGTH} hex digits after the quotes are removed (a Git blob's
     * 40-digit SHA-1, an S3 multipart ETag).
     *
     * @param reported what the store sent, or {@code null}
     * @return the digest in lower-case hex, or empty when {@code reported} is not a SHA-256
     */
    public static Optional<String> canonical(String reported) {
        if (reported == null) {
            return Optional.empty();
        }
        String s = reported.strip();
        if (s.length() >= 2 && s.charAt(0) == '"' && s.charAt(s.length() - 1) == '"') {
            s = s.substring(1, s.length() - 1);
        }
        return isHex(s) ? Optional.of(s.toLowerCase(Locale.ROOT)) : Optional.empty();
    }

    /**
     * The digest factory every SHA-256 is computed with.
     *
     * @return a new SHA-256 {@link MessageDigest}
     */
    public static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            // unreachable: the Java SE specification requires every runtime to provide SHA-256
            throw new IllegalStateException("this Java runtime provides no SHA-256", e);
        }
    }
}
