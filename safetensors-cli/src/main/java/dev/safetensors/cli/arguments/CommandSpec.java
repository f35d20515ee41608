package dev.safetensors.cli.arguments;

import java.util.ArrayList;
import java.util.List;

/**
 * What a command accepts, declared as a table: its name, the help's description and footer paragraphs, its options and
 * its positional parameters, in the order the help lists them. {@link ArgumentParser} parses against it and
 * {@link HelpText} renders it: no reflection, so the command starts without building a model from annotations.
 */
public final class CommandSpec {
    static final OptionSpec HELP = new OptionSpec(List.of("-h", "--help"), null, false, false,
            "Show this help and exit.", v -> { });

    private final String name;
    private final List<String> description;
    private final List<String> footer;
    private final List<OptionSpec> options = new ArrayList<>();
    private final List<PositionalSpec> positionals = new ArrayList<>();

    /**
     * @param name        the subcommand's name, such as {@code validate}
     * @param description the paragraphs after the usage line
     * @param footer      the lines after the options (examples)
     */
    public CommandSpec(String name, List<String> description, List<String> footer) {
        this.name = name;
        this.description = List.copyOf(description);
        this.footer = List.copyOf(footer);
    }

    /**
     * @param option an option this command takes
     * @return this, with the option added
     */
    public CommandSpec option(OptionSpec option) {
        options.add(option);
        return this;
    }

    /**
     * @param positional a positional parameter this command takes, after those added before
     * @return this, with the positional parameter added
     */
    public CommandSpec positional(PositionalSpec positional) {
        positionals.add(positional);
        return this;
    }

    String name() {
        return name;
    }

    List<String> description() {
        return description;
    }

    List<String> footer() {
        return footer;
    }

    /** @return the options, {@code --help} last */
    List<OptionSpec> options() {
        List<OptionSpec> all = new ArrayList<>(options);
        all.add(HELP);
        return all;
    }

    List<PositionalSpec> positionals() {
        return positionals;
    }
}
