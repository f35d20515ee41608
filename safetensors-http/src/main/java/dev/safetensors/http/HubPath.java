package dev.safetensors.http;

import dev.safetensors.spi.SourceNames;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A parsed {@code hf://OWNER/REPO[/PATH][@REVISION]} reference. The last literal {@code @} of the path starts the
 * revision (a file name holding {@code @} is written with {@code %40}); the revision defaults to {@code main}.
 * Parsing rejects whatever could escape the repository in the resolve URL: {@code .} and {@code ..} segments,
 * empty segments, user information, ports, queries and fragments.
 *
 * @param owner    the user or organisation
 * @param repo     the repository name
 * @param path     the file inside the repository, {@code ""} for a repository reference
 * @param revision a branch, tag or commit
 */
record HubPath(String owner, String repo, String path, String revision) {
    static final String DEFAULT_REVISION = "main";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,95}");

    /**
     * @param uri an {@code hf://} URI
     * @return the parsed reference, with or without a path
     * @throws IOException if the URI is not a well-formed Hub reference
     */
    static HubPath parse(URI uri) throws IOException {
        if (uri.getScheme() == null || !uri.getScheme().toLowerCase(Locale.ROOT).equals("hf") || uri.isOpaque()
                || uri.getRawAuthority() == null || uri.getRawUserInfo() != null || uri.getPort() >= 0
                || uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw malformed(uri, "expected hf://OWNER/REPO[/PATH][@REVISION] without user, port, query or fragment");
        }
        String owner = uri.getRawAuthority();
        String raw = uri.getRawPath() == null ? "" : uri.getRawPath();
        String revision = DEFAULT_REVISION;
        int at = raw.lastIndexOf('@');
        if (at >= 0) {
            revision = decode(uri, raw.substring(at + 1));
            raw = raw.substring(0, at);
        }
        if (!raw.startsWith("/")) {
            throw malformed(uri, "no repository name");
        }
        String rest = raw.substring(1);
        int slash = rest.indexOf('/');
        String repo = slash < 0 ? rest : rest.substring(0, slash);
        String path = slash < 0 ? "" : decode(uri, rest.substring(slash + 1));
        checkName(uri, "owner", owner);
        checkName(uri, "repository", repo);
        checkRevision(uri, revision);
        if (!path.isEmpty()) {
            checkSegments(uri, path);
        }
        return new HubPath(owner, repo, path, revision);
    }

    /** @return {@code OWNER/REPO} */
    String repository() {
        return owner + "/" + repo;
    }

    /** @return the same reference at another revision */
    HubPath at(String otherRevision) {
        return new HubPath(owner, repo, path, otherRevision);
    }

    /** @return another file of the same repository at the same revision */
    HubPath file(String otherPath) {
        return new HubPath(owner, repo, otherPath, revision);
    }

    /**
     * @param endpoint the Hub endpoint, without a trailing slash
     * @return {@code ENDPOINT/OWNER/REPO/resolve/REVISION/PATH}, the revision encoded as one segment
     */
    URI resolveUrl(URI endpoint) {
        return URI.create(endpoint + "/" + owner + "/" + repo + "/resolve/" + encode(revision, false) + "/"
                + encode(path, true));
    }

    /** @return this reference as an {@code hf://} URI that {@link #parse} reads back to an equal value */
    URI toUri() {
        String p = path.isEmpty() ? "" : "/" + encode(path, true);
        return URI.create("hf://" + owner + "/" + repo + p + "@" + encode(revision, true));
    }

    /** Percent-encodes all but RFC 3986 unreserved characters (and {@code /} when asked). */
    static String encode(String s, boolean keepSlash) {
        StringBuilder sb = new StringBuilder(s.length() + 8);
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
                    || c == '_' || c == '~' || (keepSlash && c == '/')) {
                sb.append((char) c);
            } else {
                sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return sb.toString();
    }

    /**
     * @param uri  the reference, for messages
     * @param path a path inside the repository
     * @throws IOException if the path is empty, absolute, or has empty, {@code .} or {@code ..} segments, a
     *                     backslash or a control character
     */
    static void checkSegments(URI uri, String path) throws IOException {
        for (String segment : path.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                throw malformed(uri, "the path must be relative with no empty, '.' or '..' segments");
            }
        }
        checkCharacters(uri, "path", path);
    }

    private static void checkName(URI uri, String what, String name) throws IOException {
        if (!NAME.matcher(name).matches() || name.contains("..")) {
            throw malformed(uri, "invalid " + what + " name");
        }
    }

    private static void checkRevision(URI uri, String revision) throws IOException {
        if (revision.isEmpty() || revision.equals(".") || revision.equals("..")) {
            throw malformed(uri, "invalid revision");
        }
        checkCharacters(uri, "revision", revision);
    }

    private static void checkCharacters(URI uri, String what, String s) throws IOException {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f || c == '\\') {
                throw malformed(uri, "control character or backslash in the " + what);
            }
        }
    }

    private static String decode(URI uri, String raw) throws IOException {
        try {
            return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw malformed(uri, "invalid percent-encoding");
        }
    }

    private static IOException malformed(URI uri, String why) {
        return new MalformedURLException(SourceNames.redact(uri) + ": not a Hub reference: " + why);
    }
}
