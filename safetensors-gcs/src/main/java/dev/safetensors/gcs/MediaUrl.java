package dev.safetensors.gcs;

import java.nio.charset.StandardCharsets;

/**
 * The JSON API media download URL of one object, the same endpoint {@code Storage.reader} uses:
 * {@code HOST/download/storage/v1/b/BUCKET/o/OBJECT?alt=media}. Bucket and object are percent-encoded as single
 * path segments, so a {@code /} inside an object name is sent as {@code %2F}.
 */
final class MediaUrl {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private MediaUrl() {
    }

    /**
     * @param host       the storage host from the client options, such as {@code https://storage.googleapis.com}
     * @param uri        the object
     * @param generation the generation to read and require ({@code ifGenerationMatch}), or -1 for the live object
     */
    static String of(String host, GcsUri uri, long generation) {
        String base = host.endsWith("/") ? host.substring(0, host.length() - 1) : host;
        StringBuilder sb = new StringBuilder(base).append("/download/storage/v1/b/");
        segment(sb, uri.bucket());
        sb.append("/o/");
        segment(sb, uri.object());
        sb.append("?alt=media");
        if (generation >= 0) {
            sb.append("&generation=").append(generation).append("&ifGenerationMatch=").append(generation);
        }
        return sb.toString();
    }

    /** Keeps only RFC 3986 unreserved characters; every other UTF-8 byte becomes {@code %XX}. */
    static void segment(StringBuilder sb, String s) {
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                    || c == '-' || c == '.' || c == '_' || c == '~') {
                sb.append((char) c);
            } else {
                sb.append('%').append(HEX[c >> 4]).append(HEX[c & 0xf]);
            }
        }
    }
}
