package dev.safetensors.cli.results;

import dev.safetensors.ErrorCode;

import java.util.Locale;

/**
 * A check the command performed on a source, named in every result so that "valid" always says what was looked at.
 * Files get {@link #PREFIX}, {@link #HEADER} and {@link #LAYOUT}, plus {@link #SIZE} and {@link #SHA256} when
 * verified; a sharded checkpoint gets {@link #INDEX}, {@link #SHARDS} and {@link #CONSISTENCY}.
 */
public enum Check {
    /** The 8-byte length and the first header bytes (rules 1 to 6). */
    PREFIX,
    /** The header JSON and its entries (rules 7 to 20). */
    HEADER,
    /** The tensors tile the payload exactly (rule 21). */
    LAYOUT,
    /** The object size equals the expected size. */
    SIZE,
    /** The SHA-256 of the whole object, computed locally, equals the expected digest. */
    SHA256,
    /** {@code verify --manifest} over listed locations: the file and the manifest's entries match one to one. */
    MANIFEST,
    /** The shard index parses strictly and names only plain files beside it. */
    INDEX,
    /** Every shard passed its own checks. */
    SHARDS,
    /** The index and the shards agree: every tensor mapped once to the shard that holds it, and the total size. */
    CONSISTENCY;

    /** @return the name used in JSON and text output */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param code why header validation failed
     * @return the check that failed: the header checks run in the order prefix, header, layout
     */
    static Check failedBy(ErrorCode code) {
        return switch (code) {
            case HEADER_TOO_SMALL, HEADER_TOO_LARGE, HEADER_EXCEEDS_FILE, HEADER_START, NOT_SAFETENSORS -> PREFIX;
            case OFFSETS_GAP, OFFSETS_OVERLAP, TRAILING_BYTES, OUT_OF_FILE -> LAYOUT;
            case INVALID_INDEX -> INDEX;
            case SIZE_MISMATCH -> SIZE;
            case SHA256_MISMATCH -> SHA256;
            case NOT_IN_MANIFEST -> MANIFEST;
            default -> HEADER;
        };
    }
}
