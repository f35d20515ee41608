package dev.safetensors.cli.output;


/**
 * Numbers as people read them: decimal units with one decimal below 100 ({@code 1.2 GB}, {@code 7.6 B}
 * parameters, {@code 512 B} for bytes under a kilobyte), and durations as {@code 1:05} or {@code 2h03m}.
 */
public final class Readable {
    private static final String[] BYTE_UNITS = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    private static final String[] COUNT_UNITS = {"", " k", " M", " B", " T", " P", " E"};

    private Readable() {
    }

    /**
     * @param n a byte count
     * @return for example {@code 999 B}, {@code 1.2 kB}, {@code 15 GB}
     */
    public static String bytes(long n) {
        return scaled(n, BYTE_UNITS, " ");
    }

    /**
     * @param n a count, such as parameters
     * @return for example {@code 999}, {@code 1.2 k}, {@code 7.6 B}
     */
    public static String count(long n) {
        return scaled(n, COUNT_UNITS, "");
    }

    /**
     * @param n     a count
     * @param thing what is counted, singular
     * @return for example {@code 1 tensor}, {@code 3 tensors}
     */
    public static String plural(long n, String thing) {
        return PlainText.grouped(n) + " " + thing + (n == 1 ? "" : "s");
    }

    /**
     * @param seconds a duration
     * @return {@code m:ss} under an hour, {@code 2h03m} beyond
     */
    static String duration(long seconds) {
        if (seconds < 3600) {
            return seconds / 60 + ":" + twoDigits(seconds % 60);
        }
        return seconds / 3600 + "h" + twoDigits(seconds % 3600 / 60) + "m";
    }

    private static String twoDigits(long n) {
        return n < 10 ? "0" + n : Long.toString(n);
    }

    private static String scaled(long n, String[] units, String gap) {
        if (n < 1000) {
            return n + gap + units[0];
        }
        double v = n;
        int unit = 0;
        while (v >= 999.95 && unit < units.length - 1) {
            v /= 1000;
            unit++;
        }
        String number = PlainText.decimals(v, v < 99.95 ? 1 : 0);
        return number + (units[unit].startsWith(" ") ? units[unit] : gap + units[unit]);
    }
}
