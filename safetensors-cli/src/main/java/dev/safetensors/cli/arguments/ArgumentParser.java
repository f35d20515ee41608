package dev.safetensors.cli.arguments;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import dev.safetensors.cli.output.Sanitized;

/**
 * Parses a subcommand's arguments against its {@link CommandSpec}: options as {@code --name value} or
 * {@code --name=value}, anywhere among the positional arguments; {@code --} ends the options. Each value goes to its
 * option's receiver as it is met; the positional arguments are dealt out to the parameters once all are known.
 */
public final class ArgumentParser {
    /**
     * Options of other commands that users reach for here, with the option of this command that does what they mean:
     * named in the usage error when the command has it.
     */
    private static final Map<String, Instead> INSTEAD = Map.of("--jobs", new Instead("--parallel", "--jobs is for"
            + " the commands that examine many files at once; to fetch the parts of a remote tensor at once, use"));

    /** An option to use instead of one this command lacks, and why. */
    private record Instead(String option, String why) {
    }

    private ArgumentParser() {
    }

    /**
     * @param spec the command's table
     * @param args its arguments (after the subcommand's name)
     * @return whether {@code -h} or {@code --help} was given: nothing else is checked then, and the caller shows help
     * @throws UsageException naming the first argument that does not fit
     */
    public static boolean parse(CommandSpec spec, List<String> args) {
        List<OptionSpec> options = spec.options();
        List<String> positional = new ArrayList<>();
        Set<OptionSpec> seen = new HashSet<>();
        boolean optionsEnded = false;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (optionsEnded || !arg.startsWith("-") || arg.equals("-")) {
                positional.add(arg);
                continue;
            }
            if (arg.equals("--")) {
                optionsEnded = true;
                continue;
            }
            int eq = arg.indexOf('=');
            String name = eq > 0 ? arg.substring(0, eq) : arg;
            OptionSpec option = find(options, name);
            if (option == null) {
                throw new UsageException("Unknown option: '" + Sanitized.line(arg, 200) + "'" + instead(options, name));
            }
            if (option == CommandSpec.HELP) {
                return true;
            }
            if (!seen.add(option) && !option.repeatable()) {
                throw new UsageException("option '" + option.longName() + "' should be specified only once");
            }
            String value;
            if (!option.takesValue()) {
                if (eq > 0) {
                    throw new UsageException("option '" + option.longName() + "' takes no value, was given '"
                            + Sanitized.line(arg.substring(eq + 1), 200) + "'");
                }
                value = "true";
            } else if (eq > 0) {
                value = arg.substring(eq + 1);
            } else if (i + 1 < args.size()) {
                value = args.get(++i);
            } else {
                throw new UsageException("Missing required parameter for option '" + option.longName() + "' ("
                        + option.label() + ")");
            }
            try {
                option.receiver().accept(value);
            } catch (IllegalArgumentException e) {
                throw new UsageException("Invalid value for option '" + option.longName() + "': " + e.getMessage());
            }
        }
        for (OptionSpec option : options) {
            if (option.required() && !seen.contains(option)) {
                throw new UsageException("Missing required option: '" + option.longName() + "=" + option.label()
                        + "'");
            }
        }
        deal(spec.positionals(), positional);
        return false;
    }

    /** @return the hint for an option of other commands, or "" */
    private static String instead(List<OptionSpec> options, String name) {
        Instead instead = INSTEAD.get(name);
        OptionSpec here = instead == null ? null : find(options, instead.option());
        return here == null ? "" : ": " + instead.why() + " '" + here.longName() + " " + here.label() + "'";
    }

    private static OptionSpec find(List<OptionSpec> options, String name) {
        for (OptionSpec option : options) {
            if (option.names().contains(name)) {
                return option;
            }
        }
        return null;
    }

    /** Gives each parameter, in order, as many arguments as it may take while leaving the later ones their minimum. */
    private static void deal(List<PositionalSpec> parameters, List<String> args) {
        long needed = 0;
        for (PositionalSpec parameter : parameters) {
            // the arguments fill the parameters in order: the first one left short is the one missing
            needed += parameter.min();
            if (needed > args.size()) {
                throw new UsageException("Missing required parameter: '" + parameter.label() + "'");
            }
        }
        int next = 0;
        for (int p = 0; p < parameters.size(); p++) {
            PositionalSpec parameter = parameters.get(p);
            long laterMinimum = 0;
            for (PositionalSpec later : parameters.subList(p + 1, parameters.size())) {
                laterMinimum += later.min();
            }
            long available = args.size() - next - laterMinimum;
            long take = Math.min(available, parameter.max());
            for (long k = 0; k < take; k++) {
                String arg = args.get(next++);
                try {
                    parameter.receiver().accept(arg);
                } catch (IllegalArgumentException e) {
                    throw new UsageException("Invalid value for " + parameter.label() + ": " + e.getMessage());
                }
            }
        }
        if (next < args.size()) {
            throw new UsageException("Unmatched argument: '" + Sanitized.line(args.get(next), 200) + "'");
        }
    }
}
