package dev.safetensors.cli.checks;

import java.util.Locale;

/**
 * What a file is expected to be, for {@code verify}: a size and a SHA-256, from the command line or a manifest.
 * A digest the Hub reported ({@code X-Linked-Etag}) may stand in for a locally computed one; the output then says
 * which it was compared against.
 *
 * @param size       the expected size in bytes, or -1 for no size check
 * @param sha256     the expected digest in lower-case hex, or {@code null}
 * @param sha256From where the digest came from, for messages: {@code "--sha256"}, {@code "the manifest"} or
 *                   {@code "the digest the Hub reported"}
 */
public record Expected(long size, String sha256, String sha256From) {
    /** Nothing expected: compute, compare nothing (what {@code manifest} does). */
    public static final Expected NOTHING = new Expected(-1, null, null);

    /**
     * @param size       the expected size in bytes, or -1 for no size check
     * @param sha256     the expected digest in hex, either case (it is kept in lower case), or {@code null}
     * @param sha256From where the digest came from, for messages
     */
    public Expected {
        sha256 = sha256 == null ? null : sha256.toLowerCase(Locale.ROOT);
    }
}
