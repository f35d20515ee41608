package dev.safetensors.cli;

/**
 * A size with a unit, as {@code --max-shard-size} takes it: decimal units as huggingface_hub's
 * {@code parse_size_to_int} ({@code 5GB} is 5 * 10^9 bytes; KB, MB, GB, TB), binary units (KiB, MiB, GiB, TiB) and
 * {@code B}; units in any case, a decimal fraction allowed ({@code 1.5GB}). A number without a unit is refused: a
 * shard size of "5" is far more likely a mistake than five bytes. The rule lives in core's
 * {@link dev.safetensors.core.ByteSize}, which the Spark writer shares.
 */
final class ByteSize {
    private ByteSize() {
    }

    /**
     * @param text what the user typed
     * @return the number of bytes, at least 1
     * @throws IllegalArgumentException saying what is accepted
     */
    static long parse(String text) {
        return dev.safetensors.core.ByteSize.parse(text);
    }
}
