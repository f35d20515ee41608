package dev.safetensors.cli;

import dev.safetensors.core.Sources;
import dev.safetensors.spi.SourceNames;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * What a user typed as a SOURCE, understood as {@code Sources.open(String)} understands it: a URI when it starts
 * with a scheme of two or more letters ({@code s3://b/k}, {@code https://...}, {@code file:/x}), a local path
 * otherwise (so {@code C:\m.safetensors} is a path). The command needs the distinction itself, to find sharded
 * checkpoints and to name the shards that sit beside an index.
 *
 * <p>The name used in output is what was typed, except for an http(s) URL that carries user information or a query
 * (a presigned URL's signature): its name drops both, so credentials never reach output, logs or manifests. Such a
 * URL is still opened as typed.
 *
 * @param text the location's name in output: as typed (or derived for a shard), redacted as above
 * @param uri  the URI, or {@code null} for a local path
 */
record Location(String text, URI uri) {
    /** The file name suffix of a sharded checkpoint's index. */
    static final String INDEX_SUFFIX = ".safetensors.index.json";

    /**
     * @param text what the user typed
     * @return the location
     */
    static Location parse(String text) {
        URI uri = Sources.asUri(text);
        return new Location(uri == null ? text : name(uri, text), uri);
    }

    private static String name(URI uri, String text) {
        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        boolean secret = uri.getRawUserInfo() != null || uri.getRawQuery() != null;
        return (scheme.equals("http") || scheme.equals("https")) && secret ? SourceNames.redact(uri) : text;
    }

    /**
     * @return whether the text starts like a URI with an authority ({@code s3://}, {@code hf://}): a scheme of two or
     *         more letters and {@code ://}, so that such text is never taken for a local file name when it does not
     *         parse as a URI
     */
    boolean looksLikeUri() {
        int sep = text.indexOf("://");
        if (sep < 2) {
            return false;
        }
        for (int i = 0; i < sep; i++) {
            char c = text.charAt(i);
            boolean ok = c < 0x80 && (Character.isLetter(c)
                    || (i > 0 && (Character.isDigit(c) || c == '+' || c == '-' || c == '.')));
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** @return whether this is a local path (not a URI, or a {@code file:} URI) */
    boolean isLocal() {
        return uri == null || "file".equalsIgnoreCase(uri.getScheme());
    }

    /** @return the local path; only for {@link #isLocal()} locations */
    Path path() {
        return uri == null ? Path.of(text) : Path.of(uri);
    }

    /** @return the URI scheme in lower case, or {@code ""} for a plain path */
    String scheme() {
        return uri == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    }

    /** @return whether the last path segment names a sharded checkpoint index */
    boolean isIndex() {
        String path = uri == null ? text : uri.getPath() == null ? "" : uri.getPath();
        if (scheme().equals("hf")) {
            int at = path.lastIndexOf('@');
            path = at < 0 ? path : path.substring(0, at);
        }
        return path.endsWith(INDEX_SUFFIX);
    }

    /** @return whether this is {@code hf://OWNER/REPO[@REVISION]}: a Hub repository rather than a file in one */
    boolean isHubRepository() {
        if (!scheme().equals("hf") || uri.getRawPath() == null) {
            return false;
        }
        String path = uri.getRawPath();
        int at = path.lastIndexOf('@');
        String repoPath = at < 0 ? path : path.substring(0, at);
        return repoPath.lastIndexOf('/') == 0;
    }

    /**
     * The location of a file beside this one, as the shards of an index are. Shard names have been checked to be
     * plain file names by the index parser; they are percent-encoded here, so a {@code ?} or {@code #} in a name
     * stays part of the name.
     *
     * @param fileName a plain file name
     * @param revision for an {@code hf://} file, the commit to pin the sibling to; {@code null} keeps this
     *                 location's revision
     * @return the sibling's location
     */
    Location sibling(String fileName, String revision) {
        if (uri == null) {
            Path parent = Path.of(text).getParent();
            return new Location(parent == null ? fileName : parent.resolve(fileName).toString(), null);
        }
        String segment = encodeSegment(fileName);
        if (scheme().equals("hf")) {
            String path = uri.getRawPath();
            int at = path.lastIndexOf('@');
            String rev = revision != null ? encodeSegment(revision) : at < 0 ? "main" : path.substring(at + 1);
            String dir = (at < 0 ? path : path.substring(0, at));
            dir = dir.substring(0, dir.lastIndexOf('/') + 1);
            String s = "hf://" + uri.getRawAuthority() + dir + segment + "@" + rev;
            return new Location(s, URI.create(s));
        }
        URI resolved = uri.resolve(segment);
        return new Location(name(resolved, resolved.toString()), resolved);
    }

    private static String encodeSegment(String name) {
        try {
            // ':' would make the segment read as a scheme, '@' as an hf:// revision
            return new URI(null, null, name, null).getRawPath().replace(":", "%3A").replace("@", "%40");
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("cannot encode " + name, e);
        }
    }
}
