package dev.safetensors.spi;

import java.net.URI;

/**
 * Names for messages and logs that never carry credentials: user information, query strings (where presigned
 * URLs keep their signatures) and fragments are removed.
 */
public final class SourceNames {
    private SourceNames() {
    }

    /**
     * @param uri any URI
     * @return {@code scheme://host[:port]/path}, without user information, query or fragment
     */
    public static String redact(URI uri) {
        if (uri.isOpaque()) {
            return uri.getScheme() + ":" + clip(String.valueOf(uri.getSchemeSpecificPart()).split("[?#]", 2)[0]);
        }
        StringBuilder sb = new StringBuilder();
        if (uri.getScheme() != null) {
            sb.append(uri.getScheme()).append(':');
        }
        String host = uri.getHost();
        if (host == null && uri.getRawAuthority() != null) {
            // authorities that are not server-based (s3 bucket names with underscores, for example)
            String authority = uri.getRawAuthority();
            int at = authority.lastIndexOf('@');
            host = at >= 0 ? authority.substring(at + 1) : authority;
        }
        if (host != null) {
            sb.append("//").append(host);
            if (uri.getPort() >= 0) {
                sb.append(':').append(uri.getPort());
            }
        }
        if (uri.getRawPath() != null) {
            sb.append(uri.getRawPath());
        }
        return sb.toString();
    }

    /**
     * @param s any text taken from a response
     * @return the text cut to at most 200 characters, control characters replaced, for safe quoting in messages
     */
    public static String clip(String s) {
        StringBuilder sb = new StringBuilder(Math.min(s.length(), 203));
        for (int i = 0; i < s.length() && i < 200; i++) {
            char c = s.charAt(i);
            sb.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        if (s.length() > 200) {
            sb.append("...");
        }
        return sb.toString();
    }
}
