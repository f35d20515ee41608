package dev.safetensors.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;

import java.util.Locale;

/**
 * Spells strings and integers as JSON the way a fuzz input chooses: strings raw, with every non-ASCII character or
 * every character as a {@code \}u escape, or with short escapes; integers plain, or in one of the spellings rule 18
 * refuses ({@code -0}, {@code 1.0}, {@code 1e3}, leading zeros, a sign, a value above 2^63-1).
 */
final class JsonSpelling {
    private JsonSpelling() {
    }

    static String string(FuzzedDataProvider d, String s) {
        int style = d.consumeInt(0, 7);
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c == '/' && style == 5) {
                sb.append("\\/");
            } else if (c == '\n' && style == 5) {
                sb.append("\\n");
            } else if (c < 0x20 || (style == 6 && c >= 0x80) || style == 7) {
                String hex = Integer.toHexString(0x10000 | c).substring(1);
                sb.append("\\u").append(i % 2 == 0 ? hex : hex.toUpperCase(Locale.ROOT));
            } else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    static String integer(FuzzedDataProvider d, long v) {
        return switch (d.consumeInt(0, 40)) {
            case 1 -> v + ".0";
            case 2 -> v + "e0";
            case 3 -> "0" + v;
            case 4 -> "-" + v;
            case 5 -> "+" + v;
            case 6 -> v == 0 ? "-0" : v + "E+0";
            case 7 -> Long.toUnsignedString(Long.MIN_VALUE + v);
            case 8 -> "18446744073709551616";
            case 9 -> "\"" + v + "\"";
            default -> Long.toString(v);
        };
    }
}
