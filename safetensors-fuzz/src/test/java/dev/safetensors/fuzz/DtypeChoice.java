package dev.safetensors.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;

/**
 * The {@code dtype} value of an entry: usually one of the 22 names the format defines (strict, official-only and
 * sub-byte), sometimes a near miss (case, spaces, a made-up name), sometimes not a string at all.
 */
final class DtypeChoice {
    private static final String[] DEFINED = {
        "BOOL", "U8", "I8", "F16", "BF16", "I16", "U16", "F32", "I32", "U32", "F64", "I64", "U64",
        "F8_E4M3", "F8_E5M2", "F8_E8M0", "F8_E4M3FNUZ", "F8_E5M2FNUZ", "F4", "F6_E2M3", "F6_E3M2", "C64",
    };
    private static final String[] NEAR_MISSES = {"f32", "F32 ", "", "F128", "Q4_0", "bf16", "F8"};

    /** Bits per element of the names above, in the same order; the composer sizes contiguous ranges with them. */
    private static final int[] BITS = {8, 8, 8, 16, 16, 16, 16, 32, 32, 32, 64, 64, 64, 8, 8, 8, 8, 8, 4, 6, 6, 64};

    /**
     * @param json the JSON for the value
     * @param bits bits per element, or 8 for a name without a size (the composer then sizes the range as bytes)
     */
    record Choice(String json, int bits) {
    }

    private DtypeChoice() {
    }

    static Choice pick(FuzzedDataProvider d) {
        int kind = d.consumeInt(0, 15);
        if (kind <= 11) {
            int i = kind <= 8 ? kind % 13 : d.consumeInt(0, DEFINED.length - 1);
            return new Choice(JsonSpelling.string(d, DEFINED[i]), BITS[i]);
        }
        return switch (kind) {
            case 12, 13 -> new Choice(JsonSpelling.string(d, NEAR_MISSES[d.consumeInt(0, NEAR_MISSES.length - 1)]), 8);
            case 14 -> new Choice(JsonSpelling.string(d, d.consumeAsciiString(6)), 8);
            default -> new Choice(d.pickValue(new String[] {"4", "null", "[\"F32\"]", "{}", "true"}), 8);
        };
    }
}
