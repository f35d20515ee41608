package dev.safetensors.http;

import java.net.URI;
import java.util.Locale;

/**
 * The origin of a URL (RFC 6454): scheme, host and port, with the default port filled in, compared
 * case-insensitively. Credentials are scoped by origin, never by host name alone.
 *
 * @param scheme lower-case {@code http} or {@code https}
 * @param host   lower-case host, IPv6 literals in brackets
 * @param port   the explicit or default port
 */
record Origin(String scheme, String host, int port) {

    static Origin of(URI url) {
        String scheme = String.valueOf(url.getScheme()).toLowerCase(Locale.ROOT);
        String host = String.valueOf(url.getHost()).toLowerCase(Locale.ROOT);
        int port = url.getPort() >= 0 ? url.getPort() : scheme.equals("https") ? 443 : 80;
        return new Origin(scheme, host, port);
    }

    boolean isSecure() {
        return scheme.equals("https");
    }

    /** Judged from the literal host only: resolving names here would let DNS decide where a token goes. */
    boolean isLoopback() {
        if (host.equals("localhost") || host.equals("[::1]")) {
            return true;
        }
        String[] parts = host.split("\\.", -1);
        if (parts.length != 4 || !parts[0].equals("127")) {
            return false;
        }
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(Character::isDigit) || Integer.parseInt(p) > 255) {
                return false;
            }
        }
        return true;
    }
}
