package dev.safetensors.core;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A size with a unit, as the command's {@code --max-shard-size} and the Spark writer's {@code maxShardSize} take
 * it: decimal units as huggingface_hub's {@code parse_size_to_int} ({@code 5GB} is 5 * 10^9 bytes; KB, MB, GB, TB),
 * binary units (KiB, MiB, GiB, TiB) and {@code B}; units in any case, a decimal fraction allowed ({@code 1.5GB},
 * truncated to whole bytes as the hub does). A number without a unit is refused: a shard size of "5" is far more
 * likely a mistake than five bytes.
 */
public final class ByteSize {
    private static final Pattern SIZE = Pattern.compile("(\\d{1,19}(?:\\.\\d{1,9})?) *([KMGT]I?B|B)");
    private static final Map<String, Long> UNITS = Map.of("B", 1L, "KB", 1_000L, "MB", 1_000_000L,
            "GB", 1_000_000_000L, "TB", 1_000_000_000_000L, "KIB", 1L << 10, "MIB", 1L << 20, "GIB", 1L << 30,
            "TIB", 1L << 40);
    private static final int SHOWN = 40;

    private ByteSize() {
    }

    /**
     * @param text what the user wrote
     * @return the number of bytes, at least 1
     * @throws IllegalArgumentException saying what is accepted
     */
    public static long parse(String text) {
        Matcher m = SIZE.matcher(text.trim().toUpperCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + shown(text) + "' is not a size with a unit: write it as 5GB"
                    + " (5*10^9 bytes), 500MB, 2GiB (2*2^30 bytes) ... (units B, KB, MB, GB, TB, KiB, MiB, GiB,"
                    + " TiB)");
        }
        BigDecimal bytes = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(UNITS.get(m.group(2))));
        if (bytes.compareTo(BigDecimal.ONE) < 0 || bytes.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            throw new IllegalArgumentException("'" + shown(text) + "' must be between 1 byte and 2^63-1 bytes");
        }
        return bytes.longValue();
    }

    /** The text on one line and cut short, as a message may quote it. */
    private static String shown(String text) {
        StringBuilder b = new StringBuilder();
        text.codePoints().limit(SHOWN).forEach(c -> b.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return text.codePointCount(0, text.length()) > SHOWN ? b + "..." : b.toString();
    }
}
