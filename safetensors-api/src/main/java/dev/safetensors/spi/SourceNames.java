package dev.safetensors.spi;

import dev.safetensors.SafetensorsException;

import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;

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
     * What a failure says, for the end of a message: a library failure's detail (without its source and code, which
     * the message that quotes it gives), else its own message, else, for a JDK failure that has none (a refused
     * connection from the JDK's HTTP client has none), what kind of failure it is; never {@code "null"}.
     *
     * @param failure any failure
     * @return its reason in words, clipped
     */
    public static String reason(Throwable failure) {
        if (failure instanceof SafetensorsException s && s.detail() != null) {
            return s.detail();
        }
        String message = failure.getMessage();
        if (message != null && !message.isBlank()) {
            return clip(message);
        }
        if (failure instanceof ConnectException) {
            return "connection refused";
        }
        if (failure instanceof UnknownHostException) {
            return "unknown host";
        }
        return failure.getClass().getSimpleName();
    }

    /**
     * The reason a request to {@code endpoint} got no answer, naming the host and port it tried: {@code connection
     * refused by HOST:PORT}, {@code HOST: unknown host}, or the failure's {@linkplain #reason reason}.
     *
     * @param endpoint the URL asked (only its host and port are shown)
     * @param failure  why no answer came
     * @return the reason in words
     */
    public static String noAnswer(URI endpoint, Throwable failure) {
        String host = endpoint.getHost() == null ? "?" : endpoint.getHost();
        int port = endpoint.getPort() >= 0 ? endpoint.getPort()
                : "http".equalsIgnoreCase(endpoint.getScheme()) ? 80 : 443;
        String message = failure.getMessage();
        if (failure instanceof ConnectException) {
            return message == null || message.isBlank() || message.toLowerCase(java.util.Locale.ROOT).contains("refused")
                    ? "connection refused by " + host + ":" + port
                    : "cannot connect to " + host + ":" + port + ": " + clip(message);
        }
        if (failure instanceof UnknownHostException) {
            return clip(host) + ": unknown host";
        }
        return reason(failure);
    }

    /**
     * Whether a configured endpoint may carry user information ({@code http://user:password@host/}). Any {@code @}
     * counts, wherever it stands: a password may hold {@code /}, {@code ?} or {@code #}, which would end the
     * authority a parser sees before the {@code @}, and no blob, object or Hub endpoint has an {@code @} of its own.
     * A caller refuses such an endpoint without quoting it.
     *
     * @param endpoint an endpoint as configured, parsable or not
     * @return whether it holds an {@code @}
     */
    public static boolean mayCarryUserInfo(String endpoint) {
        return endpoint.indexOf('@') >= 0;
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

    /**
     * Whether a request can name this listed name exactly. A NUL cannot travel in a request (clients and stores cut
     * or refuse it), and a lone surrogate has no UTF-8 form: encoding turns it into {@code ?}, so a name holding a
     * lone surrogate between {@code c} and {@code d} would be requested as the object {@code c?d}, another object.
     * A listing names such an entry {@link dev.safetensors.ListEntry.Kind#INVALID_NAME}, located by {@link #shown}.
     *
     * @param name a key or path as a storage listed it
     * @return whether it holds neither a NUL nor a lone surrogate
     */
    public static boolean nameable(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == 0) {
                return false;
            }
            if (Character.isHighSurrogate(c) && i + 1 < name.length() && Character.isLowSurrogate(name.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param name a key or path as a storage listed it
     * @return the name with each lone surrogate replaced by U+FFFD, to show (never to request) a name that is not
     *         {@link #nameable}
     */
    public static String shown(String name) {
        StringBuilder shown = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < name.length() && Character.isLowSurrogate(name.charAt(i + 1))) {
                shown.append(c).append(name.charAt(++i));
            } else {
                shown.append(Character.isSurrogate(c) ? '\uFFFD' : c);
            }
        }
        return shown.toString();
    }
}
