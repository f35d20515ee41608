package dev.safetensors.signing.internal;

import java.util.HexFormat;

/** Lowercase hexadecimal, strict on input: an odd length or a non-hex character is refused. */
public final class Hex {
    private static final HexFormat LOWER = HexFormat.of();

    private Hex() {
    }

    /**
     * @param bytes any bytes
     * @return their lowercase hexadecimal form
     */
    public static String encode(byte[] bytes) {
        return LOWER.formatHex(bytes);
    }

    /**
     * @param hex hexadecimal digits, either case
     * @return the bytes
     * @throws IllegalArgumentException if {@code hex} is not an even number of hexadecimal digits
     */
    public static byte[] decode(String hex) {
        return LOWER.parseHex(hex);
    }
}
