package dev.safetensors.fuzz.reference;

import java.util.Map;
import java.util.Set;

/**
 * The dtype table of rule 17 and the official preset, typed in from {@code RULES.md} rather than taken from
 * {@code dev.safetensors.DType}, so a wrong size or a missing name there shows up as a disagreement.
 */
public final class ReferenceDtypes {
    /** Bits per element of every name the format defines (22 names). */
    static final Map<String, Integer> BITS = Map.ofEntries(
            Map.entry("BOOL", 8), Map.entry("U8", 8), Map.entry("I8", 8),
            Map.entry("F16", 16), Map.entry("BF16", 16), Map.entry("I16", 16), Map.entry("U16", 16),
            Map.entry("F32", 32), Map.entry("I32", 32), Map.entry("U32", 32),
            Map.entry("F64", 64), Map.entry("I64", 64), Map.entry("U64", 64),
            Map.entry("F8_E4M3", 8), Map.entry("F8_E5M2", 8), Map.entry("F8_E8M0", 8),
            Map.entry("F8_E4M3FNUZ", 8), Map.entry("F8_E5M2FNUZ", 8),
            Map.entry("F4", 4), Map.entry("F6_E2M3", 6), Map.entry("F6_E3M2", 6),
            Map.entry("C64", 64));

    /** The 13 names the strict default policy accepts. */
    public static final Set<String> STRICT = Set.of("BOOL", "U8", "I8", "F16", "BF16", "I16", "U16", "F32", "I32",
            "U32", "F64", "I64", "U64");

    /** Every name the format defines. */
    public static final Set<String> ALL = BITS.keySet();

    private ReferenceDtypes() {
    }
}
