package dev.safetensors;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Which version of an object a source read, in the typed form every backend, the checkpoint layer, the command and
 * the Spark source share: the object's ETag, its version (S3 version id, GCS generation), the repository and the
 * revision (commit) it was resolved in, and the SHA-256 its store reports for its content (the Hub's linked ETag of
 * an LFS file). Each part is known to some backends only; an unknown part is {@code null} and its accessor empty.
 *
 * <p>A source reports its identity as this type ({@link RandomAccessSource#identity()}); its attributes
 * ({@link RandomAccessSource#attributes()}, for manifests and logs) are derived from it with {@link #toAttributes()},
 * under the keys declared here ({@link #ETAG}, {@link #VERSION}, {@link #REPOSITORY}, {@link #REVISION},
 * {@link #LINKED_SHA256}), so that the string keys are written once; {@link #of(Map)} reads them back. Immutable.
 *
 * <p>The reported digest is normalised here, the one place every identity is made: whatever a store sent (the Hub's
 * {@code X-Linked-Etag} in quotes, in upper case) is kept in {@link Sha256#canonical canonical form}, and a value
 * that is not a SHA-256 is dropped, so no reader has to recognise one again.
 *
 * @param etag         the object's ETag as the store sent it, or {@code null}
 * @param version      the object's version (S3 version id, GCS generation, Azure version id or snapshot), or
 *                     {@code null}
 * @param repository   the repository holding the object ({@code acme/model} on the Hub), or {@code null}
 * @param revision     the commit the object was read at, or {@code null}
 * @param linkedSha256 the SHA-256 of the content the store reports, in lower-case hex, or {@code null} (also when
 *                     what the store reported is not a SHA-256)
 */
public record SourceIdentity(String etag, String version, String repository, String revision, String linkedSha256) {
    /** The attribute key of {@link #etag()}. */
    public static final String ETAG = "etag";
    /** The attribute key of {@link #version()}. */
    public static final String VERSION = "version";
    /** The attribute key of {@link #repository()}. */
    public static final String REPOSITORY = "repository";
    /** The attribute key of {@link #revision()}. */
    public static final String REVISION = "revision";
    /** The attribute key of {@link #linkedSha256()} (the name the Hub gives it: its {@code X-Linked-Etag}). */
    public static final String LINKED_SHA256 = "linked_etag";

    /** Nothing known. */
    public static final SourceIdentity NONE = new SourceIdentity(null, null, null, null, null);

    /**
     * Normalises the reported digest: its canonical form, or {@code null} when it is not a SHA-256.
     *
     * @param etag         the object's ETag, or {@code null}
     * @param version      the object's version, or {@code null}
     * @param repository   the repository, or {@code null}
     * @param revision     the commit, or {@code null}
     * @param linkedSha256 the digest as the store reported it, or {@code null}
     */
    public SourceIdentity {
        linkedSha256 = Sha256.canonical(linkedSha256).orElse(null);
    }

    /**
     * @param attributes a source's {@link RandomAccessSource#attributes()}
     * @return the identity those attributes hold
     */
    public static SourceIdentity of(Map<String, String> attributes) {
        return new SourceIdentity(attributes.get(ETAG), attributes.get(VERSION), attributes.get(REPOSITORY),
                attributes.get(REVISION), attributes.get(LINKED_SHA256));
    }

    /**
     * @return the most specific version known: {@link #version()}, or else {@link #etag()}; empty when neither is
     */
    public Optional<String> versionOrEtag() {
        return Optional.ofNullable(version != null ? version : etag);
    }

    /** @return the known parts as attributes, under the keys declared here, in declaration order; unmodifiable */
    public Map<String, String> toAttributes() {
        Map<String, String> m = new LinkedHashMap<>();
        put(m, ETAG, etag);
        put(m, VERSION, version);
        put(m, REPOSITORY, repository);
        put(m, REVISION, revision);
        put(m, LINKED_SHA256, linkedSha256);
        return Collections.unmodifiableMap(m);
    }

    private static void put(Map<String, String> m, String key, String value) {
        if (value != null) {
            m.put(key, value);
        }
    }
}
