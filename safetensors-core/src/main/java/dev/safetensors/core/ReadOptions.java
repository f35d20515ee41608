package dev.safetensors.core;

/**
 * How {@link SafetensorsFile} fetches tensor bytes from a remote source: how many ranged requests run at once, how
 * large each part is, and how close two wanted byte runs of a slice must be
 * to be fetched by one request.
 *
 * <p>A range longer than {@link #partSizeBytes()} is split into parts fetched over {@link #parallelism()} connections
 * at once and handed on in order. A part that arrives while the reader still works on an earlier one waits, and the
 * next part starts at once, so the connections never wait for the reader: memory stays within
 * {@code 2 x parallelism x partSizeBytes}. With parallelism 1 every
 * range is one streamed request. Local files ({@link FileSource}) ignore these settings: they are read directly or
 * through a memory mapping.
 *
 * <pre>{@code
 * ReadOptions single = ReadOptions.builder().parallelism(1).build();
 * try (SafetensorsFile file = SafetensorsFile.open(Sources.open(uri), Limits.STRICT, true, single)) { ... }
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class ReadOptions {
    /** Default number of parts fetched at once. */
    public static final int DEFAULT_PARALLELISM = 4;
    /** Default part size in bytes (8 MiB): large enough that a request's latency is small beside its transfer. */
    public static final int DEFAULT_PART_SIZE_BYTES = 8 * 1024 * 1024;
    /**
     * Default largest gap, in bytes, between two byte runs of a slice that are fetched by one request (1 MiB): on a
     * remote store one more request costs about as much time as transferring that many bytes.
     */
    public static final int DEFAULT_COALESCE_GAP_BYTES = 1024 * 1024;
    /** Most parts fetched at once. */
    public static final int MAX_PARALLELISM = 64;
    /** Smallest part size: 64 KiB, one block of a streamed read. */
    public static final int MIN_PART_SIZE_BYTES = 64 * 1024;
    /** Largest part size: 256 MiB. */
    public static final int MAX_PART_SIZE_BYTES = 256 * 1024 * 1024;

    /**
     * {@value #DEFAULT_PARALLELISM} parts of {@value #DEFAULT_PART_SIZE_BYTES} bytes at once, slice runs coalesced across gaps of up to
     * {@value #DEFAULT_COALESCE_GAP_BYTES} bytes.
     */
    public static final ReadOptions DEFAULT = new Builder().build();

    private final int parallelism;
    private final int partSizeBytes;
    private final int coalesceGapBytes;

    private ReadOptions(Builder b) {
        this.parallelism = b.parallelism;
        this.partSizeBytes = b.partSizeBytes;
        this.coalesceGapBytes = b.coalesceGapBytes;
    }

    /** @return a builder with the {@link #DEFAULT} values */
    public static Builder builder() {
        return new Builder();
    }

    /** @return how many ranged requests run at once (default {@value #DEFAULT_PARALLELISM}) */
    public int parallelism() {
        return parallelism;
    }

    /** @return the size of one part, in bytes (default {@value #DEFAULT_PART_SIZE_BYTES}) */
    public int partSizeBytes() {
        return partSizeBytes;
    }

    /** @return the largest gap between slice runs fetched by one request (default {@value #DEFAULT_COALESCE_GAP_BYTES}) */
    public int coalesceGapBytes() {
        return coalesceGapBytes;
    }

    @Override
    public String toString() {
        return "ReadOptions{parallelism=" + parallelism + ", partSizeBytes=" + partSizeBytes + ", coalesceGapBytes="
                + coalesceGapBytes + '}';
    }

    /** Builds {@link ReadOptions}; starts from the {@link #DEFAULT} values. Not thread-safe. */
    public static final class Builder {
        private int parallelism = DEFAULT_PARALLELISM;
        private int partSizeBytes = DEFAULT_PART_SIZE_BYTES;
        private int coalesceGapBytes = DEFAULT_COALESCE_GAP_BYTES;

        private Builder() {
        }

        /**
         * @param v parts fetched at once, 1 (one streamed request per range) to {@value #MAX_PARALLELISM}
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder parallelism(int v) {
            parallelism = require("parallelism", v, 1, MAX_PARALLELISM);
            return this;
        }

        /**
         * @param v part size in bytes, a multiple of 8 from {@value #MIN_PART_SIZE_BYTES} to
         *          {@value #MAX_PART_SIZE_BYTES} (a multiple of 8 keeps every part a whole number of elements)
         * @return this builder
         * @throws IllegalArgumentException if out of range or not a multiple of 8
         */
        public Builder partSizeBytes(int v) {
            require("partSizeBytes", v, MIN_PART_SIZE_BYTES, MAX_PART_SIZE_BYTES);
            if (v % 8 != 0) {
                throw new IllegalArgumentException("partSizeBytes must be a multiple of 8, was " + v);
            }
            partSizeBytes = v;
            return this;
        }

        /**
         * @param v largest gap in bytes between two slice runs fetched by one request, 0 to 256 MiB
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder coalesceGapBytes(int v) {
            coalesceGapBytes = require("coalesceGapBytes", v, 0, MAX_PART_SIZE_BYTES);
            return this;
        }

        /** @return the options */
        public ReadOptions build() {
            return new ReadOptions(this);
        }

        private static int require(String what, int v, int min, int max) {
            if (v < min || v > max) {
                throw new IllegalArgumentException(what + " must be between " + min + " and " + max + ", was " + v);
            }
            return v;
        }
    }
}
