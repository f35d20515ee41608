package dev.safetensors;

import dev.safetensors.spi.SourceNames;

import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.Serial;
import java.io.Serializable;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a source lives, as a user wrote it: a URI when the text starts with a scheme of two or more ASCII letters
 * (then letters, digits, {@code +}, {@code -} or {@code .}) and parses as a URI ({@code s3://b/k}, {@code https://...},
 * {@code file:/x}, {@code hf://ns/repo}), a local path otherwise (so {@code C:\m.safetensors} is a path).
 *
 * <p>Immutable; equal when written the same. Parsing never fails: a text that is not a URI is a path, and whether a
 * backend accepts a URI is the backend's decision when it is opened. {@link #display()} is the form for messages,
 * output and manifests: an {@code http(s)} URL's user information and query (a presigned URL's signature) are
 * removed there, while {@link #text()} keeps what was written, for opening.
 *
 * <p>Serializable, so a Spark driver can hand locations to its executors: the serial form is the text and whether it
 * is a path, and a location read back is parsed again from them, never trusted field by field.
 */
public final class Location implements Serializable {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The file name suffix of a sharded checkpoint's index ({@code model.safetensors.index.json}). */
    public static final String INDEX_SUFFIX = ".safetensors.index.json";

    /** The file name suffix of a safetensors file. */
    public static final String FILE_SUFFIX = ".safetensors";

    /** What was written; serialized through {@link #writeReplace()}, never as this field. */
    private final transient String text;
    /** The URI {@link #text} parses as, or {@code null} for a path; derived again on reading. */
    private final transient URI uri;

    private Location(String text, URI uri) {
        this.text = text;
        this.uri = uri;
    }

    /**
     * @param text what a user wrote: a URI or a local path
     * @return the location
     */
    public static Location parse(String text) {
        Objects.requireNonNull(text, "text");
        return new Location(text, asUri(text));
    }

    /**
     * @param path a local path
     * @return the location of that path, written as the path's string form
     */
    public static Location of(Path path) {
        return new Location(path.toString(), null);
    }

    /**
     * @param uri an absolute URI
     * @return the location of that URI
     * @throws IllegalArgumentException if the URI has no scheme
     */
    public static Location of(URI uri) {
        if (uri.getScheme() == null) {
            throw new IllegalArgumentException("not an absolute URI: " + SourceNames.redact(uri));
        }
        return new Location(uri.toString(), uri);
    }

    private static URI asUri(String text) {
        int colon = text.indexOf(':');
        if (colon < 2) {
            return null;
        }
        for (int i = 0; i < colon; i++) {
            char c = text.charAt(i);
            boolean ok = c < 0x80 && (Character.isLetter(c)
                    || (i > 0 && (Character.isDigit(c) || c == '+' || c == '-' || c == '.')));
            if (!ok) {
                return null;
            }
        }
        try {
            return new URI(text);
        } catch (URISyntaxException e) {
            return null;
        }
    }

    /** @return what was written (or derived, for a {@linkplain #sibling sibling}), for opening; may hold secrets */
    public String text() {
        return text;
    }

    /** @return the URI, or empty for a plain local path */
    public Optional<URI> uri() {
        return Optional.ofNullable(uri);
    }

    /**
     * The URI, for a provider that serves URIs only: the one check, and the one message, for a location handed to
     * a provider that is a local path or text that does not parse as a URI.
     *
     * @return the URI
     * @throws InvalidLocationException with {@link ErrorCode#INVALID_SOURCE}, naming the location by
     *                                  {@link #display()}, when this location is not a URI
     */
    public URI requireUri() throws InvalidLocationException {
        if (uri == null) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, display() + ": not a URI");
        }
        return uri;
    }

    /** @return the URI scheme in lower case, or {@code ""} for a plain local path */
    public String scheme() {
        return uri == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    }

    /** @return whether this is a local path: a plain path or a {@code file:} URI */
    public boolean isLocal() {
        return uri == null || scheme().equals("file");
    }

    /**
     * @return the local path
     * @throws IllegalStateException if this location is not {@linkplain #isLocal() local}
     * @throws IllegalArgumentException if a {@code file:} URI does not name a path of the default file system
     */
    public Path path() {
        if (!isLocal()) {
            throw new IllegalStateException("not a local location: " + display());
        }
        return uri == null ? Path.of(text) : Path.of(uri);
    }

    /**
     * @return whether the text looks like a URI with an authority ({@code s3://}, {@code hf://}), whether or not it
     *         parsed: such text is never taken for a local file name, so a malformed URI is reported as one
     */
    public boolean looksLikeUri() {
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

    /** @return the path part, decoded for URIs ({@code ""} when a URI has none) */
    private String pathPart() {
        if (uri == null) {
            return text;
        }
        return uri.getPath() == null ? "" : uri.getPath();
    }

    /** @return whether the last path segment names a sharded checkpoint index ({@value #INDEX_SUFFIX}) */
    public boolean isIndex() {
        return pathPart().endsWith(INDEX_SUFFIX);
    }

    /**
     * @return whether the location is written as a folder or a prefix: its path ends with {@code /} (or, for a local
     *         path, with the platform's separator). Only the text is consulted, never the storage.
     */
    public boolean isFolder() {
        String path = pathPart();
        if (uri == null) {
            return path.endsWith("/") || path.endsWith(java.io.File.separator);
        }
        return path.endsWith("/") || (path.isEmpty() && uri.getRawAuthority() != null);
    }

    /** @return the last path segment, decoded; {@code ""} for a folder or a location without a path */
    public String fileName() {
        String path = pathPart();
        if (isFolder()) {
            return "";
        }
        int slash = Math.max(path.lastIndexOf('/'), uri == null ? path.lastIndexOf(java.io.File.separatorChar) : -1);
        return path.substring(slash + 1);
    }

    /**
     * The location of a file beside this one (in the same folder or prefix), or inside it when this location
     * {@linkplain #isFolder() is a folder}. For URIs the name is percent-encoded as one path segment, so {@code ?},
     * {@code #}, {@code :}, {@code @} and spaces stay part of the name; the query of this location is not carried.
     *
     * @param fileName a plain file name (no {@code /})
     * @return the sibling's location
     * @throws IllegalArgumentException if the name is empty, {@code .} or {@code ..}, or holds a {@code /}
     */
    public Location sibling(String fileName) {
        if (fileName.isEmpty() || fileName.equals(".") || fileName.equals("..") || fileName.indexOf('/') >= 0
                || fileName.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("not a plain file name: " + SourceNames.clip(fileName));
        }
        if (uri == null) {
            Path here = Path.of(text);
            Path parent = isFolder() ? here : here.getParent();
            return of(parent == null ? Path.of(fileName) : parent.resolve(fileName));
        }
        URI base = uri;
        if (base.getRawPath() == null || base.getRawPath().isEmpty()) {
            base = URI.create(uri.getScheme() + "://" + uri.getRawAuthority() + "/");
        }
        return of(base.resolve(encodeSegment(fileName)));
    }

    /**
     * Percent-encodes one URI path segment: everything but RFC 3986's unreserved characters is encoded, {@code /}
     * included.
     *
     * @param segment any text
     * @return the encoded segment
     */
    public static String encodeSegment(String segment) {
        StringBuilder sb = new StringBuilder(segment.length() + 8);
        for (byte b : segment.getBytes(StandardCharsets.UTF_8)) {
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

    /**
     * @return the form for messages and output: the text as written, except that an {@code http(s)} URL carrying
     *         user information or a query, and a URI of any scheme whose user information holds a password
     *         ({@code ftp://user:password@host/}, which Hadoop's FTP filesystem reads), are shown without them
     */
    public String display() {
        if (uri == null) {
            return text;
        }
        String scheme = scheme();
        String userInfo = uri.getRawUserInfo();
        boolean secret = userInfo != null || uri.getRawQuery() != null;
        // a user name alone is no secret (an Azure container in wasbs://container@account/), a password is
        boolean password = userInfo != null && userInfo.indexOf(':') >= 0;
        return password || (scheme.equals("http") || scheme.equals("https")) && secret ? SourceNames.redact(uri)
                : text;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Location other && text.equals(other.text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    /** @return {@link #display()} */
    @Override
    public String toString() {
        return display();
    }

    /**
     * Serializes a location as its serial form: the text and whether it is a path.
     *
     * @return the serial form
     */
    @Serial
    private Object writeReplace() {
        return new SerialForm(text, uri == null);
    }

    /**
     * Refuses a stream that holds a location's fields directly: only the serial form is read.
     *
     * @param in the stream
     * @throws InvalidObjectException always
     */
    @Serial
    private void readObject(ObjectInputStream in) throws InvalidObjectException {
        throw new InvalidObjectException("a Location is read through its serial form only");
    }

    /** What a serialized location holds: the text and whether it names a local path. */
    private record SerialForm(String text, boolean local) implements Serializable {
        @Serial
        private static final long serialVersionUID = 1L;

        @Serial
        private Object readResolve() throws InvalidObjectException {
            if (text == null) {
                throw new InvalidObjectException("a serialized Location without its text");
            }
            if (local) {
                return new Location(text, null);
            }
            URI uri = asUri(text);
            if (uri == null) {
                throw new InvalidObjectException("a serialized Location marked a URI is not one");
            }
            return new Location(text, uri);
        }
    }
}
