package dev.safetensors.fuzz;

import dev.safetensors.DType;
import dev.safetensors.Limits;
import dev.safetensors.fuzz.reference.ReferencePolicy;
import dev.safetensors.fuzz.reference.ReferenceDtypes;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The same policy in the validator's terms and in the reference checker's.
 *
 * @param name      for messages
 * @param limits    the validator's policy
 * @param reference the reference checker's policy
 */
record PolicyPair(String name, Limits limits, ReferencePolicy reference) {
    /** The strict default of {@code RULES.md}. */
    static final PolicyPair DEFAULT = new PolicyPair("DEFAULT", Limits.STRICT, ReferencePolicy.STRICT);

    /** The official crate's envelope. */
    static final PolicyPair OFFICIAL = new PolicyPair("OFFICIAL", Limits.OFFICIAL, ReferencePolicy.OFFICIAL);

    /**
     * Bounds small enough for inputs of a few hundred bytes to cross every one of them (depth, string, metadata
     * value, entry, key and rank bounds, header size), so the fuzzer reaches rules 3, 10, 12, 13, 14 and 18.
     */
    static final PolicyPair TIGHT = tight();

    /** Every policy the fuzz targets judge each input under. */
    static final List<PolicyPair> ALL = List.of(DEFAULT, OFFICIAL, TIGHT);

    private static PolicyPair tight() {
        ReferencePolicy r = new ReferencePolicy(600, 4, 12, 20, 4, 3, 3, false, ReferenceDtypes.STRICT);
        Limits l = Limits.builder()
                .maxHeaderBytes(r.maxHeaderBytes())
                .maxDepth(r.maxDepth())
                .maxStringBytes(r.maxStringBytes())
                .maxMetadataValueBytes(r.maxMetadataValueBytes())
                .maxEntries(r.maxEntries())
                .maxMetadataKeys(r.maxMetadataKeys())
                .maxRank(r.maxRank())
                .allowLeadingWhitespace(r.leadingWhitespace())
                .acceptedDtypes(dtypes(r.acceptedDtypes()))
                .build();
        return new PolicyPair("TIGHT", l, r);
    }

    private static Set<DType> dtypes(Set<String> names) {
        return names.stream().map(n -> DType.fromName(n).orElseThrow())
                .collect(Collectors.toCollection(() -> EnumSet.noneOf(DType.class)));
    }
}
