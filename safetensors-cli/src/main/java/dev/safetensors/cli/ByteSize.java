package dev.safetensors.cli;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A size with a unit, as {@code --max-shard-size} and {@code --part-size} take it: decimal units as huggingface_hub's
 * {@code parse_size_to_int} ({@code 5GB} is 5 * 10^9 bytes; KB, MB, GB, TB), binary units (KiB, MiB, GiB, TiB) and
 * {@code B}; units in any case, a decimal fraction allowed ({@code 1.5GB}). {@link #parse} refuses a number without a
 * unit (a shard size of "5" is far more likely a mistake than five bytes); {@link #parseBytes} reads it as bytes, for
 * options that took plain byte counts before they took units.
 */
final class ByteSize {
    private static final Pattern SIZE = Pattern.compile("(\\d{1,19}(?:\\.\\d{1,9})?)\\s*([KMGT]I?B|B)");
    private static final Pattern BARE = Pattern.compile("\\d{1,19}");
    private static final Map<String, Long> UNITS = Map.of("B", 1L, "KB", 1_000L, "MB", 1_000_000L,
            "GB", 1_000_000_000L, "TB", 1_000_000_000_000L, "KIB", 1L << 10, "MIB", 1L << 20, "GIB", 1L << 30,
            "TIB", 1L << 40);

    private ByteSize() {
    }

    /**
     * @param text what the user typed
     * @return the number of bytes, at least 1
     * @throws IllegalArgumentException saying what is accepted
     */
    static long parse(String text) {
        return parse(text, true);
    }

    /**
     * @param text what the user typed: a size with a unit, or a number of bytes
     * @return the number of bytes, at least 1
     * @throws IllegalArgumentException saying what is accepted
     */
    static long parseBytes(String text) {
        return parse(text, false);
    }

    private static long parse(String text, boolean unitRequired) {
        if (!unitRequired && BARE.matcher(text.trim()).matches()) {
            return parse(text.trim() + "B", true);
        }
        Matcher m = SIZE.matcher(text.trim().toUpperCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + Sanitized.line(text, 40) + "' is not a size" + (unitRequired
                    ? " with a unit" : "") + ": write it as 5GB (5*10^9 bytes), 500MB, 2GiB (2*2^30 bytes) ... (units B, KB, MB, GB, TB, KiB,"
                    + " MiB, GiB, TiB)");
        }
        BigDecimal bytes = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(UNITS.get(m.group(2))));
        if (bytes.compareTo(BigDecimal.ONE) < 0 || bytes.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            throw new IllegalArgumentException("'" + Sanitized.line(text, 40) + "' must be between 1 byte and 2^63-1"
                    + " bytes");
        }
        // as the hub does: int(value * multiplier) truncates
        return bytes.longValue();
    }
}
