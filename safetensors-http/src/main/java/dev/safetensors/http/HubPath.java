package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.spi.SourceNames;

import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A parsed {@code hf://[datasets/|spaces/|models/]NAMESPACE/NAME[@REVISION][/PATH]} reference, split as
 * {@code huggingface_hub}'s {@code parse_hf_uri} (behind {@code HfFileSystem.resolve_path}) splits it:
 * <ul>
 *   <li>a first segment {@code models}, {@code datasets} or {@code spaces} names the repository type (models by
 *       default); the repository id is always {@code NAMESPACE/NAME} (single-segment ids such as {@code gpt2} are
 *       refused, as {@code HfFileSystem} now refuses them);</li>
 *   <li>an {@code @} belongs to the revision only when it directly follows {@code NAMESPACE/NAME}; an {@code @}
 *       further along is part of the path, so {@code hf://acme/repo/a@b.safetensors} names the file
 *       {@code a@b.safetensors};</li>
 *   <li>after the {@code @}, {@code refs/pr/N} and {@code refs/convert/NAME} are matched whole; any other revision
 *       ends at the next {@code /} and is percent-decoded, so {@code @refs%2Fpr%2F1} and {@code @feature%2Fx}
 *       name revisions holding slashes; the revision defaults to {@code main}.</li>
 * </ul>
 * Because the input is a {@link URI}, the path is percent-decoded ({@code %20} is a space, {@code %25} a
 * {@code %}). The trailing form of earlier versions ({@code hf://acme/repo/model.safetensors@main}) is refused with
 * a message showing the form above. Parsing rejects whatever could escape the repository in the resolve URL:
 * {@code .} and {@code ..} segments, empty segments, user information, ports, queries and fragments; one trailing
 * {@code /} names a folder ({@code hf://acme/repo@main/unet/} is the folder {@code unet}). Every refusal
 * is an {@link InvalidLocationException} with {@link ErrorCode#INVALID_SOURCE}.
 *
 * @param type      the repository type
 * @param namespace the user or organisation
 * @param name      the repository name
 * @param path      the file or folder inside the repository, without a trailing slash; {@code ""} for a repository
 *                  reference
 * @param revision  a branch, tag or commit
 */
record HubPath(RepoType type, String namespace, String name, String path, String revision) {
    static final String DEFAULT_REVISION = "main";
    static final String SYNTAX = "hf://[datasets/|spaces/]NAMESPACE/REPO[@REVISION][/PATH]";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,94}[A-Za-z0-9_])?");
    private static final Pattern SPECIAL_REF = Pattern.compile("^refs/(?:convert/[\\w.-]+|pr/\\d+)");
    /** The form of earlier versions: a checkpoint file followed by {@code @REVISION}. */
    private static final Pattern TRAILING_REVISION = Pattern.compile("(.*\\.(?:safetensors|json))@([^/]+)");

    /** The kinds of Hub repositories, with the prefix each takes in {@code hf://} and in resolve URLs. */
    enum RepoType {
        /** A model repository: no prefix in URLs. */
        MODEL("models", ""),
        /** A dataset repository, at {@code /datasets/...}. */
        DATASET("datasets", "datasets/"),
        /** A Space, at {@code /spaces/...}. */
        SPACE("spaces", "spaces/");

        final String plural;
        final String urlPrefix;

        RepoType(String plural, String urlPrefix) {
            this.plural = plural;
            this.urlPrefix = urlPrefix;
        }

        static RepoType ofPlural(String segment) {
            for (RepoType t : values()) {
                if (t.plural.equals(segment)) {
                    return t;
                }
            }
            return null;
        }
    }

    /**
     * @param uri an {@code hf://} URI
     * @return the parsed reference, with or without a path
     * @throws InvalidLocationException with {@code INVALID_SOURCE} if the URI is not a well-formed Hub reference
     */
    static HubPath parse(URI uri) throws IOException {
        if (uri.getScheme() == null || !uri.getScheme().toLowerCase(Locale.ROOT).equals("hf") || uri.isOpaque()
                || uri.getRawAuthority() == null || uri.getRawUserInfo() != null || uri.getPort() >= 0
                || uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw malformed(uri, "expected " + SYNTAX + " without user, port, query or fragment");
        }
        // the authority is the first segment: join it back so the body reads as parse_hf_uri reads it
        String body = uri.getRawAuthority() + (uri.getRawPath() == null ? "" : uri.getRawPath());
        RepoType type = RepoType.MODEL;
        int slash = body.indexOf('/');
        String first = slash < 0 ? body : body.substring(0, slash);
        RepoType prefixed = RepoType.ofPlural(first);
        if (prefixed != null) {
            type = prefixed;
            body = slash < 0 ? "" : body.substring(slash + 1);
        } else if (first.equals("kernels") || first.equals("buckets")) {
            throw malformed(uri, first + " are not supported; expected " + SYNTAX);
        } else if (first.equals("model") || first.equals("dataset") || first.equals("space")) {
            throw malformed(uri, "the type prefix is plural: hf://" + first + "s/...");
        }
        String namespace;
        String name;
        String revision = DEFAULT_REVISION;
        String rawPath;
        int at = body.indexOf('@');
        if (at >= 0 && count(body.substring(0, at), '/') <= 1) {
            String id = body.substring(0, at);
            int idSlash = id.indexOf('/');
            if (idSlash < 0) {
                throw malformed(uri, "the repository id must be NAMESPACE/REPO; expected " + SYNTAX);
            }
            namespace = id.substring(0, idSlash);
            name = id.substring(idSlash + 1);
            String rest = body.substring(at + 1);
            Matcher special = SPECIAL_REF.matcher(rest);
            String rawRevision;
            if (special.find()) {
                rawRevision = special.group();
                rest = rest.substring(rawRevision.length());
                if (!rest.isEmpty() && !rest.startsWith("/")) {
                    throw malformed(uri, "unexpected text after revision " + rawRevision);
                }
                rawPath = rest.isEmpty() ? "" : rest.substring(1);
            } else {
                int revSlash = rest.indexOf('/');
                rawRevision = revSlash < 0 ? rest : rest.substring(0, revSlash);
                rawPath = revSlash < 0 ? "" : rest.substring(revSlash + 1);
            }
            revision = decode(uri, rawRevision);
            if (revision.isEmpty()) {
                throw malformed(uri, "empty revision after '@'");
            }
        } else {
            String[] parts = body.split("/", 3);
            if (parts.length < 2) {
                throw malformed(uri, "the repository id must be NAMESPACE/REPO (single-segment ids such as 'gpt2' "
                        + "are not supported); expected " + SYNTAX);
            }
            namespace = parts[0];
            name = parts[1];
            rawPath = parts.length > 2 ? parts[2] : "";
            Matcher old = TRAILING_REVISION.matcher(rawPath);
            if (old.matches()) {
                throw malformed(uri, "the revision goes right after the repository, as in hf://"
                        + type.urlPrefix + namespace + "/" + name + "@" + old.group(2) + "/" + old.group(1));
            }
        }
        if (rawPath.length() > 1 && rawPath.endsWith("/")) {
            // one trailing slash names a folder, as it does in a prefix: hf://acme/repo@main/unet/ is the folder unet
            rawPath = rawPath.substring(0, rawPath.length() - 1);
        }
        checkName(uri, "namespace", namespace);
        checkName(uri, "repository", name);
        checkRevision(uri, revision);
        String path = decode(uri, rawPath);
        if (!path.isEmpty()) {
            checkSegments(uri, path);
        }
        return new HubPath(type, namespace, name, path, revision);
    }

    /** @return {@code NAMESPACE/REPO} */
    String repository() {
        return namespace + "/" + name;
    }

    /** @return the same reference at another revision */
    HubPath at(String otherRevision) {
        return new HubPath(type, namespace, name, path, otherRevision);
    }

    /** @return another file of the same repository at the same revision */
    HubPath file(String otherPath) {
        return new HubPath(type, namespace, name, otherPath, revision);
    }

    /**
     * @param endpoint the Hub endpoint, without a trailing slash
     * @return {@code ENDPOINT/[datasets/|spaces/]NAMESPACE/REPO/resolve/REVISION/PATH}, the revision encoded as one
     *         segment
     */
    URI resolveUrl(URI endpoint) {
        return URI.create(endpoint + "/" + type.urlPrefix + namespace + "/" + name + "/resolve/"
                + encode(revision, false) + "/" + encode(path, true));
    }

    /** @return this reference as an {@code hf://} URI that {@link #parse} reads back to an equal value */
    URI toUri() {
        String p = path.isEmpty() ? "" : "/" + encode(path, true);
        return URI.create("hf://" + type.urlPrefix + namespace + "/" + name + "@" + encode(revision, false) + p);
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
     * @throws InvalidLocationException if the path is empty, absolute, or has empty, {@code .} or {@code ..}
     *                                  segments, a backslash or a control character
     */
    static void checkSegments(URI uri, String path) throws IOException {
        for (String segment : path.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                throw malformed(uri, "the path must be relative with no empty, '.' or '..' segments");
            }
        }
        checkCharacters(uri, "path", path);
    }

    private static int count(String s, char c) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == c) {
                n++;
            }
        }
        return n;
    }

    /** The rules of {@code huggingface_hub}'s {@code validate_repo_id}, applied to each half of the id. */
    private static void checkName(URI uri, String what, String name) throws IOException {
        if (!NAME.matcher(name).matches() || name.contains("..") || name.contains("--") || name.endsWith(".git")) {
            throw malformed(uri, "invalid " + what + " name '" + SourceNames.clip(name) + "' (letters, digits, "
                    + "'-', '_', '.', at most 96, not starting or ending with '-' or '.', no '--' or '..')");
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

    static InvalidLocationException malformed(URI uri, String why) {
        return new InvalidLocationException(ErrorCode.INVALID_SOURCE, SourceNames.redact(uri)
                + ": not a Hub reference: " + why);
    }
}
