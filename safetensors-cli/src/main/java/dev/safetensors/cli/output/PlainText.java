package dev.safetensors.cli.output;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Column padding and number formatting for the text output, as {@code String.format} with {@link java.util.Locale#ROOT}
 * would print them ({@code %-Ns}, {@code %Ns}, {@code %,d}, {@code %.Nf}), without {@link java.util.Formatter}: its
 * parsing, locale data and regular expressions cost a tenth of a short run's start.
 */
final class PlainText {
    private PlainText() {
    }

    /** @return {@code s} followed by spaces up to {@code width} columns ({@code %-Ns}); never cut */
    static String padded(String s, int width) {
        StringBuilder sb = new StringBuilder(Math.max(width, s.length())).append(s);
        while (sb.length() < width) {
            sb.append(' ');
        }
        return sb.toString();
    }

    /** @return {@code s} after spaces up to {@code width} columns ({@code %Ns}); never cut */
    static String rightAligned(String s, int width) {
        StringBuilder sb = new StringBuilder(Math.max(width, s.length()));
        for (int i = s.length(); i < width; i++) {
            sb.append(' ');
        }
        return sb.append(s).toString();
    }

    /** @return {@code n} with a comma between groups of three digits ({@code %,d}), such as {@code -1,234,567} */
    static String grouped(long n) {
        String digits = Long.toString(n);
        int start = n < 0 ? 1 : 0;
        StringBuilder sb = new StringBuilder(digits.length() + digits.length() / 3).append(digits, 0, start);
        for (int i = start; i < digits.length(); i++) {
            if (i > start && (digits.length() - i) % 3 == 0) {
                sb.append(',');
            }
            sb.append(digits.charAt(i));
        }
        return sb.toString();
    }

    /** @return {@code v} rounded half up to {@code places} decimals ({@code %.Nf}) */
    static String decimals(double v, int places) {
        return new BigDecimal(Double.toString(v)).setScale(places, RoundingMode.HALF_UP).toPlainString();
    }
}
