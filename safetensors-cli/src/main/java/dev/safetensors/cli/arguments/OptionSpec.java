package dev.safetensors.cli.arguments;

import java.util.List;
import java.util.function.Consumer;

/**
 * One option of a command: its names, the label of its value ({@code null} for a flag, which takes none), whether it
 * must be given and whether it may be given more than once, its help text, and what receives its value (a flag
 * receives {@code "true"}). The receiver converts the text and throws {@link IllegalArgumentException} with a message
 * for the user when it cannot.
 */
public record OptionSpec(List<String> names, String label, boolean required, boolean repeatable, String description,
                  Consumer<String> receiver) {

    /**
     * @param name        the option's long name, such as {@code --json}
     * @param description what it does, for the help
     * @param set         what giving it does
     * @return a flag: an option without a value
     */
    public static OptionSpec flag(String name, String description, Runnable set) {
        return new OptionSpec(List.of(name), null, false, false, description, v -> set.run());
    }

    /**
     * @param name        the option's long name, such as {@code --out}
     * @param label       the value's name in the help, such as {@code DIR}
     * @param description what it does, for the help
     * @param receiver    takes the value as typed
     * @return an option with a value, given at most once
     */
    public static OptionSpec value(String name, String label, String description, Consumer<String> receiver) {
        return new OptionSpec(List.of(name), label, false, false, description, receiver);
    }

    /** @return this option, required */
    public OptionSpec mandatory() {
        return new OptionSpec(names, label, true, repeatable, description, receiver);
    }

    /** @return this option, which may be given more than once */
    public OptionSpec repeated() {
        return new OptionSpec(names, label, required, true, description, receiver);
    }

    /**
     * @param shortName the alias, such as {@code -o}
     * @return this option with that short alias
     */
    public OptionSpec alias(String shortName) {
        return new OptionSpec(List.of(shortName, names.get(names.size() - 1)), label, required, repeatable,
                description, receiver);
    }

    /** @return whether it takes a value */
    boolean takesValue() {
        return label != null;
    }

    /** @return the long name, as the messages name the option */
    String longName() {
        return names.get(names.size() - 1);
    }
}
