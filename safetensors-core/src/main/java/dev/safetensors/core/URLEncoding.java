package dev.safetensors.core;

import java.nio.charset.StandardCharsets;

/** Percent-encoding of one URI path segment: everything but RFC 3986 unreserved characters is encoded. */
final class URLEncoding {
    private URLEncoding() {
    }

    /**
     * @param s any text
     * @return it as one path segment ({@code /} encoded too)
     */
    static String segment(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 8);
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
                    || c == '_' || c == '~') {
                sb.append((char) c);
            } else {
                sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return sb.toString();
    }
}
