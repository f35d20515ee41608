package dev.safetensors.fuzz.reference;

import java.util.Set;

/**
 * The bounds of a validation policy, as the reference checker sees them. {@link #STRICT} and {@link #OFFICIAL} are
 * the presets of {@code RULES.md}, written out here from its text; the fuzz tests map each policy to a
 * {@code dev.safetensors.Limits} to run the validator under the same bounds.
 *
 * @param maxHeaderBytes        rule 3
 * @param maxDepth              rule 10
 * @param maxStringBytes        rule 12
 * @param maxMetadataValueBytes rule 13
 * @param maxEntries            rule 14, {@code __metadata__} included
 * @param maxMetadataKeys       rule 14
 * @param maxRank               rule 18
 * @param leadingWhitespace     rule 5's official exception
 * @param acceptedDtypes        rule 17
 */
public record ReferencePolicy(long maxHeaderBytes, int maxDepth, int maxStringBytes, int maxMetadataValueBytes,
                              int maxEntries, int maxMetadataKeys, int maxRank, boolean leadingWhitespace,
                              Set<String> acceptedDtypes) {
    /** {@code Limits.STRICT}: the numbers in rules 3, 10, 12, 13, 14 and 18. */
    public static final ReferencePolicy STRICT = new ReferencePolicy(8_388_608L, 8, 1024, 65_536, 50_000, 50_000, 16,
            false, ReferenceDtypes.STRICT);

    /**
     * {@code Limits.OFFICIAL}: 100,000,000-byte headers, depth 128, no string, entry or rank bounds beyond the header
     * size (so the largest int stands for "none"), leading whitespace, all 22 dtypes.
     */
    public static final ReferencePolicy OFFICIAL = new ReferencePolicy(100_000_000L, 128, Integer.MAX_VALUE,
            Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE, true, ReferenceDtypes.ALL);
}
