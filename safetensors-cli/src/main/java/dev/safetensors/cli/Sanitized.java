package dev.safetensors.cli;

/**
 * Text from a file (tensor names, metadata, source names) made safe for one line of terminal output: control
 * characters escaped, so a hostile header cannot move the cursor or forge lines, and long values clipped.
 */
final class Sanitized {
    private Sanitized() {
    }

    /**
     * @param s   any text
     * @param max the most characters kept before {@code ...}
     * @return the text on one line, with {@code \n}, {@code \t} and other control characters escaped
     */
    static String line(String s, int max) {
        StringBuilder sb = new StringBuilder(Math.min(s.length(), max) + 8);
        for (int i = 0; i < s.length(); i++) {
            if (sb.length() >= max) {
                return sb.append("...").toString();
            }
            char c = s.charAt(i);
            if (c == '\n') {
                sb.append("\\n");
            } else if (c == '\t') {
                sb.append("\\t");
            } else if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
