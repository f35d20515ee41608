package dev.safetensors.signing;

import java.util.Objects;

/**
 * One entry of a manifest: a file, or for {@link Serialization.Method#SHARDS} a byte range of one, with its digest.
 *
 * @param name      the file's path relative to the model root with {@code /} separators; for a shard,
 *                  {@code path:start:end} (start inclusive, end exclusive, decimal)
 * @param algorithm the digest algorithm as the signer wrote it ({@code sha256}; the reference implementation writes
 *                  {@code sha256-sharded-N} for shards)
 * @param digest    the digest, lowercase hexadecimal
 */
public record Resource(String name, String algorithm, String digest) {
    /**
     * Checks that no component is {@code null}.
     *
     * @param name the file's path, or {@code path:start:end} for a shard
     * @param algorithm the digest algorithm
     * @param digest the digest, lowercase hexadecimal
     * @throws NullPointerException if a component is {@code null}
     */
    public Resource {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(digest, "digest");
    }
}
