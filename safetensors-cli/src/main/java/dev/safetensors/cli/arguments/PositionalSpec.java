package dev.safetensors.cli.arguments;

import java.util.function.Consumer;

/**
 * One positional parameter of a command: its label, how many arguments it takes (at least {@code min}, at most
 * {@code max}), its help text and what receives each argument.
 */
public record PositionalSpec(String label, int min, int max, String description, Consumer<String> receiver) {
    /** Any number of arguments. */
    public static final int MANY = Integer.MAX_VALUE;

    /** @return the label as the usage line shows it: {@code SOURCE}, {@code [SOURCE]} or {@code SOURCE...} */
    String shown() {
        String repeated = max > 1 ? label + "..." : label;
        return min == 0 ? "[" + repeated + "]" : repeated;
    }
}
