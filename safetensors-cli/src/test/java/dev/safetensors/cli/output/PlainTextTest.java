package dev.safetensors.cli.output;

import org.junit.jupiter.api.Test;

import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link PlainText} prints what {@code String.format} with {@link Locale#ROOT} would. */
class PlainTextTest {

    @Test
    void paddingMatchesTheFormatterAndNeverCuts() {
        for (String s : new String[] {"", "OK", "UNSUPPORTED", "a longer text than the width"}) {
            assertEquals(String.format(Locale.ROOT, "%-11s", s), PlainText.padded(s, 11));
            assertEquals(String.format(Locale.ROOT, "%11s", s), PlainText.rightAligned(s, 11));
        }
    }

    @Test
    void groupedMatchesTheFormatter() {
        long[] values = {0, 7, 999, 1000, 12345, 999999, 1000000, -1, -1000, -123456789, Long.MAX_VALUE,
            Long.MIN_VALUE};
        for (long v : values) {
            assertEquals(String.format(Locale.ROOT, "%,d", v), PlainText.grouped(v));
        }
    }

    @Test
    void decimalsRoundHalfUpAsTheFormatter() {
        double[] values = {0, 1.05, 1.15, 1.25, 2.5, 99.94, 99.95, 548.105171, 999.949, 0.04999, 12.345};
        for (double v : values) {
            assertEquals(String.format(Locale.ROOT, "%.1f", v), PlainText.decimals(v, 1), Double.toString(v));
            assertEquals(String.format(Locale.ROOT, "%.0f", v), PlainText.decimals(v, 0), Double.toString(v));
        }
    }
}
