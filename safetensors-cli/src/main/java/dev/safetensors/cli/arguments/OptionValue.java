package dev.safetensors.cli.arguments;

import java.net.URI;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;
import dev.safetensors.cli.output.Sanitized;

/**
 * Converts option values from text; each throws {@link IllegalArgumentException} with a message for the user, which
 * {@link ArgumentParser} turns into a usage error naming the option.
 */
public final class OptionValue {
    private OptionValue() {
    }

    static int integer(String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + Sanitized.line(text, 80) + "' is not an int");
        }
    }

    /**
     * @param text an option's value
     * @return it as a {@code long}
     * @throws IllegalArgumentException if it is not one; the parser reports it as a usage error
     */
    public static long longInteger(String text) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + Sanitized.line(text, 80) + "' is not a long");
        }
    }

    static URI uri(String text) {
        try {
            return new URI(text);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException("'" + Sanitized.line(text, 200) + "' is not a URI: " + e.getReason());
        }
    }

    /**
     * @param text an option's value
     * @return it as a path
     * @throws IllegalArgumentException if it is not one; the parser reports it as a usage error
     */
    public static Path path(String text) {
        try {
            return Path.of(text);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("'" + Sanitized.line(text, 200) + "' is not a path: " + e.getReason());
        }
    }

    /** @return the policy named, in any case */
    static Policy policy(String text) {
        for (Policy p : Policy.values()) {
            if (p.name().equalsIgnoreCase(text)) {
                return p;
            }
        }
        throw new IllegalArgumentException("expected one of " + Policy.STRICT.name().toLowerCase(Locale.ROOT) + ", "
                + Policy.OFFICIAL.name().toLowerCase(Locale.ROOT) + " (case-insensitive) but was '"
                + Sanitized.line(text, 80) + "'");
    }
}
