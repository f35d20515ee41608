package dev.safetensors.cli.arguments;

import java.util.List;
import java.util.Map;

/**
 * Renders a command's help from its {@link CommandSpec}: the usage line, the description, the parameters and options
 * with their descriptions in two columns, and the footer; text but the footer's (examples, kept as written) wraps at
 * {@link #WIDTH} columns.
 */
public final class HelpText {
    static final int WIDTH = 100;
    /** The widest left column; a longer option name puts its description on the next line. */
    private static final int MAX_LEFT = 30;

    private HelpText() {
    }

    /**
     * @param spec the subcommand's options and parameters
     * @return the help of a subcommand
     */
    public static String of(CommandSpec spec) {
        StringBuilder usage = new StringBuilder("Usage: safetensors ").append(spec.name()).append(" [OPTIONS]");
        for (OptionSpec option : spec.options()) {
            if (option.required()) {
                usage.append(' ').append(option.longName()).append('=').append(option.label());
            }
        }
        for (PositionalSpec parameter : spec.positionals()) {
            usage.append(' ').append(parameter.shown());
        }
        StringBuilder sb = new StringBuilder();
        wrap(sb, usage.toString(), 0, 0);
        for (String paragraph : spec.description()) {
            wrap(sb, paragraph, 0, 0);
        }
        int left = 0;
        for (PositionalSpec parameter : spec.positionals()) {
            left = Math.max(left, 6 + parameter.shown().length());
        }
        for (OptionSpec option : spec.options()) {
            left = Math.max(left, name(option).length());
        }
        left = Math.min(left + 2, MAX_LEFT);
        for (PositionalSpec parameter : spec.positionals()) {
            row(sb, "      " + parameter.shown(), parameter.description(), left);
        }
        for (OptionSpec option : spec.options()) {
            row(sb, name(option), option.description(), left);
        }
        for (String line : spec.footer()) {
            sb.append(line).append('\n');
        }
        return sb.toString();
    }

    /**
     * @param description the paragraphs after the usage line
     * @param commands    each command's name and one-line summary
     * @param footer      the lines after the commands
     * @return the help of {@code safetensors} itself
     */
    public static String ofTop(List<String> description, Map<String, String> commands, List<String> footer) {
        StringBuilder sb = new StringBuilder();
        sb.append("Usage: safetensors [-hV] [COMMAND]\n");
        for (String paragraph : description) {
            wrap(sb, paragraph, 0, 0);
        }
        row(sb, "  -h, --help", "Show this help and exit.", 17);
        row(sb, "  -V, --version", "Print version information and exit.", 17);
        sb.append("Commands:\n");
        commands.forEach((name, summary) -> row(sb, "  " + name, summary, 17));
        for (String line : footer) {
            sb.append(line).append('\n');
        }
        return sb.toString();
    }

    private static String name(OptionSpec option) {
        StringBuilder sb = new StringBuilder();
        if (option.names().size() > 1) {
            sb.append("  ").append(option.names().get(0)).append(", ");
        } else {
            sb.append("      ");
        }
        sb.append(option.longName());
        if (option.takesValue()) {
            sb.append('=').append(option.label());
        }
        return sb.toString();
    }

    /** Appends a two-column row: {@code name}, padded to {@code left}, then the wrapped description. */
    private static void row(StringBuilder sb, String name, String description, int left) {
        sb.append(name);
        if (name.length() + 1 > left) {
            sb.append('\n');
            pad(sb, left);
        } else {
            pad(sb, left - name.length());
        }
        int start = sb.length();
        wrap(sb, description, left, left);
        // the first line's indent is already there
        sb.delete(start, start + left);
    }

    /** Appends {@code text} broken at spaces into lines of at most {@link #WIDTH} columns, each ending in a newline. */
    private static void wrap(StringBuilder sb, String text, int firstIndent, int nextIndent) {
        int indent = firstIndent;
        int at = 0;
        do {
            pad(sb, indent);
            int room = WIDTH - indent;
            int end = text.length();
            if (end - at > room) {
                int space = text.lastIndexOf(' ', at + room);
                end = space > at ? space : at + room;
            }
            sb.append(text, at, end).append('\n');
            at = end;
            while (at < text.length() && text.charAt(at) == ' ') {
                at++;
            }
            indent = nextIndent;
        } while (at < text.length());
    }

    private static void pad(StringBuilder sb, int n) {
        for (int i = 0; i < n; i++) {
            sb.append(' ');
        }
    }
}
