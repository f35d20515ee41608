package dev.safetensors.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;

/**
 * Names for tensors and metadata keys that stress rules 11 and 12: a small pool so that names collide (also through
 * escapes, since {@link JsonSpelling} may escape any of them), names on both sides of the 12- and 1024-byte bounds
 * built from multi-byte characters, the reserved {@code __metadata__}, and free text from the fuzzer.
 */
final class NameChoice {
    private static final String[] POOL = {
        "w", "b", "a.b", "layer.0.weight", "", "__metadata__", "__metadata_", "é", "日本", "😀", "\u0000", "\"",
        "\\", "/", "\ud800", "\udc00x", "w ", "W",
    };

    private NameChoice() {
    }

    static String pick(FuzzedDataProvider d) {
        int kind = d.consumeInt(0, 9);
        return switch (kind) {
            case 0, 1, 2, 3 -> POOL[d.consumeInt(0, POOL.length - 1)];
            case 4 -> "é".repeat(6) + (d.consumeBoolean() ? "a" : "");
            case 5 -> "é".repeat(512) + (d.consumeBoolean() ? "a" : "");
            case 6 -> "x".repeat(d.consumeInt(10, 14));
            case 7 -> "😀".repeat(d.consumeInt(2, 4));
            default -> d.consumeString(d.consumeInt(0, 16));
        };
    }
}
