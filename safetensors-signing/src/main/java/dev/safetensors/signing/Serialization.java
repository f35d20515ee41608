package dev.safetensors.signing;

import java.util.List;
import java.util.Objects;

/**
 * How a model's files become a manifest: the {@code serialization} object of the OMS predicate. The verifier
 * reads it from the signed manifest and hashes the model again the same way.
 *
 * @param method        {@link Method#FILES}: one digest per file; {@link Method#SHARDS}: one per {@code shardSize}
 *                      range of each non-empty file
 * @param hashType      the digest algorithm of the resources: {@link #SHA256}, {@link #BLAKE2B} or {@link #BLAKE3}
 * @param shardSize     the range length in bytes for {@link Method#SHARDS}, positive; 0 for {@link Method#FILES}
 * @param allowSymlinks whether symbolic links are followed (their targets hashed under the link's name) rather than
 *                      refused
 * @param ignorePaths   paths relative to the model root, with {@code /} separators, left out of the manifest with
 *                      everything under them; the defaults ({@link #DEFAULT_IGNORE_PATHS}) apply in addition
 */
public record Serialization(Method method, String hashType, long shardSize, boolean allowSymlinks,
                            List<String> ignorePaths) {

    /** The serialization methods OMS defines. */
    public enum Method {
        /** One resource per file, empty files included. */
        FILES("files"),
        /** One resource per {@code shard_size} byte range; empty files have none. */
        SHARDS("shards");

        private final String jsonName;

        Method(String jsonName) {
            this.jsonName = jsonName;
        }

        /** @return the name the predicate uses: {@code files} or {@code shards} */
        public String jsonName() {
            return jsonName;
        }
    }

    /** SHA-256, the digest of OMS's required profile and the default. */
    public static final String SHA256 = "sha256";

    /** BLAKE2b-512, unkeyed, an optional digest of OMS's algorithm registry. */
    public static final String BLAKE2B = "blake2b";

    /**
     * BLAKE3, 32-byte digests, an optional digest of OMS's algorithm registry. The reference implementation signs it
     * with {@link Method#FILES} only.
     */
    public static final String BLAKE3 = "blake3";

    /** The shard size the reference implementation signs with unless told otherwise: 10^9 bytes. */
    public static final long DEFAULT_SHARD_SIZE = 1_000_000_000L;

    /** The paths every signer and verifier leaves out (OMS 6.2), matched at the model root only. */
    public static final List<String> DEFAULT_IGNORE_PATHS = List.of(".git", ".gitattributes", ".github", ".gitignore");

    /**
     * Checks that the parameters fit together.
     *
     * @param method        files or shards
     * @param hashType      the digest algorithm's OMS name
     * @param shardSize     the shard length for shards, 0 for files
     * @param allowSymlinks whether symbolic links are followed
     * @param ignorePaths   paths left out, relative to the model root
     * @throws IllegalArgumentException if {@code shardSize} does not fit {@code method}, or an ignore path is
     *                                  absolute, climbs with {@code ..} or is empty
     */
    public Serialization {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(hashType, "hashType");
        ignorePaths = List.copyOf(ignorePaths);
        if (method == Method.SHARDS ? shardSize <= 0 : shardSize != 0) {
            throw new IllegalArgumentException("shard size " + shardSize + " does not fit method " + method);
        }
        for (String path : ignorePaths) {
            if (path.isEmpty() || path.startsWith("/") || List.of(path.split("/", -1)).contains("..")) {
                throw new IllegalArgumentException("ignore path \"" + path + "\" is not relative to the model root");
            }
        }
    }

    /** @return SHA-256 of every file, symbolic links refused, no extra ignore paths */
    public static Serialization files() {
        return new Serialization(Method.FILES, SHA256, 0, false, List.of());
    }

    /** @return SHA-256 of every {@link #DEFAULT_SHARD_SIZE} range, symbolic links refused, no extra ignore paths */
    public static Serialization shards() {
        return shards(DEFAULT_SHARD_SIZE);
    }

    /**
     * @param shardSize the range length in bytes, positive
     * @return SHA-256 of every {@code shardSize} range, symbolic links refused, no extra ignore paths
     */
    public static Serialization shards(long shardSize) {
        return new Serialization(Method.SHARDS, SHA256, shardSize, false, List.of());
    }

    /**
     * @param allow whether symbolic links are followed
     * @return this serialization with that symlink policy
     */
    public Serialization withAllowSymlinks(boolean allow) {
        return new Serialization(method, hashType, shardSize, allow, ignorePaths);
    }

    /**
     * @param hashType the digest algorithm of the resources ({@link #SHA256}, {@link #BLAKE2B}, {@link #BLAKE3})
     * @return this serialization with that digest algorithm
     */
    public Serialization withHashType(String hashType) {
        return new Serialization(method, hashType, shardSize, allowSymlinks, ignorePaths);
    }

    /**
     * @param paths paths relative to the model root to leave out, besides the defaults
     * @return this serialization with those ignore paths
     */
    public Serialization withIgnorePaths(List<String> paths) {
        return new Serialization(method, hashType, shardSize, allowSymlinks, paths);
    }
}
