package dev.safetensors;

/**
 * The bounds of the files around the headers that a checkpoint workflow reads whole: the
 * {@code *.safetensors.index.json}, {@code config.json}, a repository's listing of checkpoints and a manifest of
 * digests. {@link Limits} bounds the headers themselves; the two are held apart because a header bound is a rule of
 * the format (rules 3 to 23 of {@code RULES.md}) while these bound what an application is willing to read.
 *
 * <p>Each bound is checked before the bytes it bounds are held: a file or answer declared, or found, larger is
 * refused with a coded error, and nothing of it is parsed. Immutable and thread-safe.
 *
 * @param maxIndexBytes            the largest index read, in bytes
 * @param maxShardsPerIndex        the most distinct shards an index may name (an index also never names more
 *                                 shards than tensors)
 * @param maxConfigBytes           the largest {@code config.json} read, in bytes
 * @param maxCheckpointsPerListing the most checkpoints taken from one repository listing
 * @param maxManifestBytes         the largest manifest of digests read back for verification, in bytes
 */
public record CheckpointLimits(int maxIndexBytes, int maxShardsPerIndex, int maxConfigBytes,
                               int maxCheckpointsPerListing, int maxManifestBytes) {
    /** Default largest {@code *.safetensors.index.json}: some hundred times the index of a 50,000-tensor checkpoint. */
    public static final int DEFAULT_MAX_INDEX_BYTES = 64 * 1024 * 1024;
    /**
     * Default most distinct shards an index may name: far above any real checkpoint (the largest public ones have a
     * few hundred).
     */
    public static final int DEFAULT_MAX_SHARDS_PER_INDEX = 10_000;
    /** Default largest {@code config.json} read beside a checkpoint. */
    public static final int DEFAULT_MAX_CONFIG_BYTES = 4 * 1024 * 1024;
    /** Default most checkpoints taken from one repository listing (a diffusers pipeline has a handful). */
    public static final int DEFAULT_MAX_CHECKPOINTS_PER_LISTING = 1_000;
    /** Default largest manifest of digests read back for verification. */
    public static final int DEFAULT_MAX_MANIFEST_BYTES = 64 * 1024 * 1024;
    /** Largest value of a byte bound: a Java array's size, as {@code readNBytes(max + 1)} needs one byte more. */
    public static final int MAX_BYTES_BOUND = Integer.MAX_VALUE - 8;

    /**
     * The defaults: a {@value #DEFAULT_MAX_INDEX_BYTES}-byte index of at most {@value #DEFAULT_MAX_SHARDS_PER_INDEX}
     * shards, a {@value #DEFAULT_MAX_CONFIG_BYTES}-byte {@code config.json}, {@value #DEFAULT_MAX_CHECKPOINTS_PER_LISTING}
     * checkpoints per listing, a {@value #DEFAULT_MAX_MANIFEST_BYTES}-byte manifest.
     */
    public static final CheckpointLimits DEFAULT = new CheckpointLimits(DEFAULT_MAX_INDEX_BYTES,
            DEFAULT_MAX_SHARDS_PER_INDEX, DEFAULT_MAX_CONFIG_BYTES, DEFAULT_MAX_CHECKPOINTS_PER_LISTING,
            DEFAULT_MAX_MANIFEST_BYTES);

    /**
     * @param maxIndexBytes            the largest index read, in bytes
     * @param maxShardsPerIndex        the most distinct shards an index may name
     * @param maxConfigBytes           the largest {@code config.json} read, in bytes
     * @param maxCheckpointsPerListing the most checkpoints taken from one repository listing
     * @param maxManifestBytes         the largest manifest of digests read back for verification, in bytes
     * @throws IllegalArgumentException if a byte bound is not 2 to {@value #MAX_BYTES_BOUND}, or a count is below 1
     */
    public CheckpointLimits {
        requireBytes("maxIndexBytes", maxIndexBytes);
        requireBytes("maxConfigBytes", maxConfigBytes);
        requireBytes("maxManifestBytes", maxManifestBytes);
        requireCount("maxShardsPerIndex", maxShardsPerIndex);
        requireCount("maxCheckpointsPerListing", maxCheckpointsPerListing);
    }

    /**
     * @param v the largest index read, in bytes
     * @return these bounds with that one changed
     */
    public CheckpointLimits withMaxIndexBytes(int v) {
        return new CheckpointLimits(v, maxShardsPerIndex, maxConfigBytes, maxCheckpointsPerListing, maxManifestBytes);
    }

    /**
     * @param v the most distinct shards an index may name
     * @return these bounds with that one changed
     */
    public CheckpointLimits withMaxShardsPerIndex(int v) {
        return new CheckpointLimits(maxIndexBytes, v, maxConfigBytes, maxCheckpointsPerListing, maxManifestBytes);
    }

    /**
     * @param v the largest {@code config.json} read, in bytes
     * @return these bounds with that one changed
     */
    public CheckpointLimits withMaxConfigBytes(int v) {
        return new CheckpointLimits(maxIndexBytes, maxShardsPerIndex, v, maxCheckpointsPerListing, maxManifestBytes);
    }

    /**
     * @param v the most checkpoints taken from one repository listing
     * @return these bounds with that one changed
     */
    public CheckpointLimits withMaxCheckpointsPerListing(int v) {
        return new CheckpointLimits(maxIndexBytes, maxShardsPerIndex, maxConfigBytes, v, maxManifestBytes);
    }

    /**
     * @param v the largest manifest read, in bytes
     * @return these bounds with that one changed
     */
    public CheckpointLimits withMaxManifestBytes(int v) {
        return new CheckpointLimits(maxIndexBytes, maxShardsPerIndex, maxConfigBytes, maxCheckpointsPerListing, v);
    }

    private static void requireBytes(String what, int v) {
        if (v < 2 || v > MAX_BYTES_BOUND) {
            throw new IllegalArgumentException(what + " must be between 2 and " + MAX_BYTES_BOUND + ", was " + v);
        }
    }

    private static void requireCount(String what, int v) {
        if (v < 1) {
            throw new IllegalArgumentException(what + " must be at least 1, was " + v);
        }
    }
}
