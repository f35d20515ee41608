package dev.safetensors.cli.arguments;

/**
 * A size with a unit, as {@code --max-shard-size} and {@code --part-size} take it: decimal units as huggingface_hub's
 * {@code parse_size_to_int} ({@code 5GB} is 5 * 10^9 bytes; KB, MB, GB, TB), binary units (KiB, MiB, GiB, TiB) and
 * {@code B}; units in any case, a decimal fraction allowed ({@code 1.5GB}). {@link #parse} refuses a number without a
 * unit (a shard size of "5" is far more likely a mistake than five bytes); {@link #parseBytes} reads it as bytes, for
 * options that took plain byte counts before they took units. The rule lives in core's
 * {@link dev.safetensors.core.ByteSize}, which the Spark writer shares.
 */
public final class ByteSize {
    private ByteSize() {
    }

    /**
     * @param text what the user typed
     * @return the number of bytes, at least 1
     * @throws IllegalArgumentException saying what is accepted
     */
    public static long parse(String text) {
        return dev.safetensors.core.ByteSize.parse(text);
    }

    /**
     * @param text what the user typed: a size with a unit, or a number of bytes
     * @return the number of bytes, at least 1
     * @throws IllegalArgumentException saying what is accepted
     */
    public static long parseBytes(String text) {
        String t = text.trim();
        boolean bare = !t.isEmpty() && t.length() <= 19 && t.chars().allMatch(c -> c >= '0' && c <= '9');
        return dev.safetensors.core.ByteSize.parse(bare ? t + "B" : text);
    }
}
