package dev.safetensors;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * The validation policy: every bound the header reader enforces, and which dtypes it accepts.
 *
 * <p>{@link #STRICT} is the strict policy of {@code RULES.md}. {@link #OFFICIAL} is the envelope of the official
 * Rust crate, for files that the strict policy refuses but the official loader takes. Build others with
 * {@link #builder()} or {@link #toBuilder()}. Duplicate names, extra tensor fields and non-integer numbers are
 * invalid under every policy.
 *
 * <p>Immutable and thread-safe.
 */
public final class Limits {
    /** Default largest header length N, in bytes (rule 3): 8 MiB, some hundred times a 50,000-tensor header. */
    public static final long DEFAULT_MAX_HEADER_BYTES = 8L * 1024 * 1024;
    /** Default deepest nesting, the root object being depth 1 (rule 10): a header needs 3, metadata strings 2. */
    public static final int DEFAULT_MAX_DEPTH = 8;
    /** Default longest name or other string in UTF-8 bytes, metadata values aside (rule 12). */
    public static final int DEFAULT_MAX_STRING_BYTES = 1024;
    /** Default longest metadata value in UTF-8 bytes (rule 13). */
    public static final int DEFAULT_MAX_METADATA_VALUE_BYTES = 65_536;
    /** Default most root entries, {@code __metadata__} included (rule 14). */
    public static final int DEFAULT_MAX_ENTRIES = 50_000;
    /** Default most metadata keys (rule 14). */
    public static final int DEFAULT_MAX_METADATA_KEYS = 50_000;
    /** Default most dimensions of a shape (rule 18). */
    public static final int DEFAULT_MAX_RANK = 16;
    /** Default most elements {@code readFloat32} materializes (rule 23): 512 MiB of {@code float}. */
    public static final long DEFAULT_MAX_FLOAT32_ELEMENTS = 134_217_728L;
    /** Default bytes the first read of a header check asks for: most headers fit, so a check is one request. */
    public static final int DEFAULT_PREFETCH_BYTES = 128 * 1024;

    /** The strict policy: 8 MiB headers, depth 8, 1,024-byte strings, 50,000 entries, rank 16, 13 dtypes. */
    public static final Limits STRICT = new Builder().build();

    /**
     * The official crate's envelope: 100,000,000-byte headers, depth 128, no string, entry or rank bounds beyond
     * the header size, leading JSON whitespace allowed, all 22 dtypes accepted.
     */
    public static final Limits OFFICIAL = new Builder()
            .maxHeaderBytes(100_000_000L)
            .maxDepth(128)
            .maxStringBytes(Integer.MAX_VALUE)
            .maxMetadataValueBytes(Integer.MAX_VALUE)
            .maxEntries(Integer.MAX_VALUE)
            .maxMetadataKeys(Integer.MAX_VALUE)
            .maxRank(Integer.MAX_VALUE)
            .allowLeadingWhitespace(true)
            .acceptedDtypes(DType.all())
            .build();

    private final long maxHeaderBytes;
    private final int maxDepth;
    private final int maxStringBytes;
    private final int maxMetadataValueBytes;
    private final int maxEntries;
    private final int maxMetadataKeys;
    private final int maxRank;
    private final long maxFloat32Elements;
    private final int prefetchBytes;
    private final boolean allowLeadingWhitespace;
    private final Set<DType> acceptedDtypes;

    private Limits(Builder b) {
        this.maxHeaderBytes = b.maxHeaderBytes;
        this.maxDepth = b.maxDepth;
        this.maxStringBytes = b.maxStringBytes;
        this.maxMetadataValueBytes = b.maxMetadataValueBytes;
        this.maxEntries = b.maxEntries;
        this.maxMetadataKeys = b.maxMetadataKeys;
        this.maxRank = b.maxRank;
        this.maxFloat32Elements = b.maxFloat32Elements;
        this.prefetchBytes = b.prefetchBytes;
        this.allowLeadingWhitespace = b.allowLeadingWhitespace;
        this.acceptedDtypes = Collections.unmodifiableSet(EnumSet.copyOf(b.acceptedDtypes));
    }

    /** @return a builder with the {@link #STRICT} values */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder starting from this policy's values */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** @return the largest accepted header length N in bytes (rule 3; default {@value #DEFAULT_MAX_HEADER_BYTES}) */
    public long maxHeaderBytes() {
        return maxHeaderBytes;
    }

    /** @return the deepest accepted nesting, the root object being depth 1 (rule 10; default {@value #DEFAULT_MAX_DEPTH}) */
    public int maxDepth() {
        return maxDepth;
    }

    /** @return the longest name or other string in UTF-8 bytes, metadata values aside (rule 12; default {@value #DEFAULT_MAX_STRING_BYTES}) */
    public int maxStringBytes() {
        return maxStringBytes;
    }

    /** @return the longest metadata value in UTF-8 bytes (rule 13; default {@value #DEFAULT_MAX_METADATA_VALUE_BYTES}) */
    public int maxMetadataValueBytes() {
        return maxMetadataValueBytes;
    }

    /** @return the most root entries, {@code __metadata__} included (rule 14; default {@value #DEFAULT_MAX_ENTRIES}) */
    public int maxEntries() {
        return maxEntries;
    }

    /** @return the most metadata keys (rule 14; default {@value #DEFAULT_MAX_METADATA_KEYS}) */
    public int maxMetadataKeys() {
        return maxMetadataKeys;
    }

    /** @return the most dimensions of a shape (rule 18; default {@value #DEFAULT_MAX_RANK}) */
    public int maxRank() {
        return maxRank;
    }

    /** @return the most elements {@code readFloat32} materializes (rule 23; default {@value #DEFAULT_MAX_FLOAT32_ELEMENTS} = 512 MiB) */
    public long maxFloat32Elements() {
        return maxFloat32Elements;
    }

    /** @return how many bytes the first read of a header check asks for (default {@value #DEFAULT_PREFETCH_BYTES}) */
    public int prefetchBytes() {
        return prefetchBytes;
    }

    /** @return whether JSON whitespace may precede the opening brace (rule 5; official only) */
    public boolean allowLeadingWhitespace() {
        return allowLeadingWhitespace;
    }

    /** @return the dtypes a header may use (rule 17) */
    public Set<DType> acceptedDtypes() {
        return acceptedDtypes;
    }

    @Override
    public String toString() {
        return "Limits{maxHeaderBytes=" + maxHeaderBytes + ", maxDepth=" + maxDepth + ", maxStringBytes="
                + maxStringBytes + ", maxMetadataValueBytes=" + maxMetadataValueBytes + ", maxEntries=" + maxEntries
                + ", maxMetadataKeys=" + maxMetadataKeys + ", maxRank=" + maxRank + ", maxFloat32Elements="
                + maxFloat32Elements + ", prefetchBytes=" + prefetchBytes + ", allowLeadingWhitespace="
                + allowLeadingWhitespace + ", acceptedDtypes=" + acceptedDtypes + '}';
    }

    /** Builds a {@link Limits}; starts from the {@link #STRICT} values. Not thread-safe. */
    public static final class Builder {
        private long maxHeaderBytes = DEFAULT_MAX_HEADER_BYTES;
        private int maxDepth = DEFAULT_MAX_DEPTH;
        private int maxStringBytes = DEFAULT_MAX_STRING_BYTES;
        private int maxMetadataValueBytes = DEFAULT_MAX_METADATA_VALUE_BYTES;
        private int maxEntries = DEFAULT_MAX_ENTRIES;
        private int maxMetadataKeys = DEFAULT_MAX_METADATA_KEYS;
        private int maxRank = DEFAULT_MAX_RANK;
        private long maxFloat32Elements = DEFAULT_MAX_FLOAT32_ELEMENTS;
        private int prefetchBytes = DEFAULT_PREFETCH_BYTES;
        private boolean allowLeadingWhitespace;
        private Set<DType> acceptedDtypes = DType.strictSet();

        private Builder() {
        }

        private Builder(Limits l) {
            maxHeaderBytes = l.maxHeaderBytes;
            maxDepth = l.maxDepth;
            maxStringBytes = l.maxStringBytes;
            maxMetadataValueBytes = l.maxMetadataValueBytes;
            maxEntries = l.maxEntries;
            maxMetadataKeys = l.maxMetadataKeys;
            maxRank = l.maxRank;
            maxFloat32Elements = l.maxFloat32Elements;
            prefetchBytes = l.prefetchBytes;
            allowLeadingWhitespace = l.allowLeadingWhitespace;
            acceptedDtypes = l.acceptedDtypes;
        }

        /**
         * @param v largest header length, 2 to {@link Integer#MAX_VALUE} - 8 (a header is held in one array)
         * @return this builder
         */
        public Builder maxHeaderBytes(long v) {
            maxHeaderBytes = requireRange("maxHeaderBytes", v, 2, Integer.MAX_VALUE - 8);
            return this;
        }

        /**
         * @param v deepest nesting, at least 3 (root, tensor entry, shape array)
         * @return this builder
         */
        public Builder maxDepth(int v) {
            maxDepth = (int) requireRange("maxDepth", v, 3, 100_000);
            return this;
        }

        /**
         * @param v longest string in UTF-8 bytes, at least 1
         * @return this builder
         */
        public Builder maxStringBytes(int v) {
            maxStringBytes = (int) requireRange("maxStringBytes", v, 1, Integer.MAX_VALUE);
            return this;
        }

        /**
         * @param v longest metadata value in UTF-8 bytes, at least 0
         * @return this builder
         */
        public Builder maxMetadataValueBytes(int v) {
            maxMetadataValueBytes = (int) requireRange("maxMetadataValueBytes", v, 0, Integer.MAX_VALUE);
            return this;
        }

        /**
         * @param v most root entries, at least 0
         * @return this builder
         */
        public Builder maxEntries(int v) {
            maxEntries = (int) requireRange("maxEntries", v, 0, Integer.MAX_VALUE);
            return this;
        }

        /**
         * @param v most metadata keys, at least 0
         * @return this builder
         */
        public Builder maxMetadataKeys(int v) {
            maxMetadataKeys = (int) requireRange("maxMetadataKeys", v, 0, Integer.MAX_VALUE);
            return this;
        }

        /**
         * @param v most dimensions, at least 0
         * @return this builder
         */
        public Builder maxRank(int v) {
            maxRank = (int) requireRange("maxRank", v, 0, Integer.MAX_VALUE);
            return this;
        }

        /**
         * @param v most elements {@code readFloat32} materializes, 0 to {@link Integer#MAX_VALUE} - 8
         * @return this builder
         */
        public Builder maxFloat32Elements(long v) {
            maxFloat32Elements = requireRange("maxFloat32Elements", v, 0, Integer.MAX_VALUE - 8);
            return this;
        }

        /**
         * @param v bytes asked for by the first read of a header check, 8 to 64 MiB
         * @return this builder
         */
        public Builder prefetchBytes(int v) {
            prefetchBytes = (int) requireRange("prefetchBytes", v, 8, 64L * 1024 * 1024);
            return this;
        }

        /**
         * @param v whether JSON whitespace may precede the opening brace
         * @return this builder
         */
        public Builder allowLeadingWhitespace(boolean v) {
            allowLeadingWhitespace = v;
            return this;
        }

        /**
         * @param v the accepted dtypes; must not be empty
         * @return this builder
         */
        public Builder acceptedDtypes(Set<DType> v) {
            Objects.requireNonNull(v, "acceptedDtypes");
            if (v.isEmpty()) {
                throw new IllegalArgumentException("acceptedDtypes must not be empty");
            }
            acceptedDtypes = EnumSet.copyOf(v);
            return this;
        }

        /** @return the policy */
        public Limits build() {
            return new Limits(this);
        }

        private static long requireRange(String what, long v, long min, long max) {
            if (v < min || v > max) {
                throw new IllegalArgumentException(what + " must be between " + min + " and " + max + ", was " + v);
            }
            return v;
        }
    }
}
