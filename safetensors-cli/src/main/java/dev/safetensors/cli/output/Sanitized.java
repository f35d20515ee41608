package dev.safetensors.cli.output;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * Text from a file or a server (tensor names, dtype strings, metadata, source names, messages that quote them) made
 * safe for terminal output: control characters, bidirectional controls (U+202E and the rest), invisible format
 * characters and line or paragraph separators are escaped as {@code \\uXXXX}, so a hostile header cannot move the
 * cursor, reorder what is shown or forge lines.
 */
public final class Sanitized {
    private Sanitized() {
    }

    /**
     * @param s   any text
     * @param max the most characters kept before {@code ...}
     * @return the text on one line, with {@code \n}, {@code \t} and every other character above escaped
     */
    public static String line(String s, int max) {
        StringBuilder sb = new StringBuilder(Math.min(s.length(), max) + 8);
        for (int i = 0; i < s.length(); ) {
            if (sb.length() >= max) {
                return sb.append("...").toString();
            }
            int c = s.codePointAt(i);
            i += Character.charCount(c);
            if (c == '\n') {
                sb.append("\\n");
            } else if (c == '\t') {
                sb.append("\\t");
            } else {
                append(sb, c);
            }
        }
        return sb.toString();
    }

    /**
     * A stack trace for {@code --debug}: exception messages quote file and server content too.
     *
     * @param e a failure
     * @return its stack trace, each line escaped as {@link #line} does except for the tabs and line breaks of the
     *         trace itself
     */
    public static String stackTrace(Throwable e) {
        StringWriter w = new StringWriter();
        e.printStackTrace(new PrintWriter(w));
        StringBuilder sb = new StringBuilder(w.getBuffer().length() + 64);
        w.toString().lines().forEach(l -> {
            int indent = 0;
            while (indent < l.length() && l.charAt(indent) == '\t') {
                indent++;
            }
            sb.append(l, 0, indent).append(line(l.substring(indent), Integer.MAX_VALUE)).append(System.lineSeparator());
        });
        return sb.toString();
    }

    private static void append(StringBuilder sb, int c) {
        if (unsafe(c)) {
            sb.append(c > 0xffff ? String.format("\\U%08x", c) : String.format("\\u%04x", c));
        } else {
            sb.appendCodePoint(c);
        }
    }

    /**
     * Controls, format characters (bidi controls, zero-width characters), separators, lone surrogates, and U+FFFD,
     * which stands for bytes that could not be decoded (a file name that is not UTF-8) and must not pass for them.
     */
    private static boolean unsafe(int c) {
        return c == 0xfffd || switch (Character.getType(c)) {
            case Character.CONTROL, Character.FORMAT, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR,
                 Character.SURROGATE, Character.PRIVATE_USE, Character.UNASSIGNED -> true;
            default -> false;
        };
    }
}
