package dev.safetensors.fuzz.reference;

import dev.safetensors.fuzz.reference.JsonValue.JsonArray;
import dev.safetensors.fuzz.reference.JsonValue.JsonLiteral;
import dev.safetensors.fuzz.reference.JsonValue.JsonNumber;
import dev.safetensors.fuzz.reference.JsonValue.JsonObject;
import dev.safetensors.fuzz.reference.JsonValue.JsonString;
import dev.safetensors.fuzz.reference.JsonValue.Member;

import java.util.ArrayList;
import java.util.List;

/**
 * A deliberately plain recursive-descent RFC 8259 parser over already decoded text, written from the grammar and
 * rules 8 to 10 rather than from the validator: it shares no code with the core tokenizer, works on characters
 * instead of bytes, and builds a whole tree. The recursion is bounded by {@code maxDepth}, which is checked before
 * descending, so a deep input costs no stack.
 */
final class JsonTreeParser {
    private static final String HEX = "0123456789abcdefABCDEF";

    private final String text;
    private final int maxDepth;
    private int at;

    private JsonTreeParser(String text, int maxDepth) {
        this.text = text;
        this.maxDepth = maxDepth;
    }

    /**
     * Parses a whole JSON text whose root must be an object, followed only by JSON whitespace.
     *
     * @param text             the decoded text
     * @param maxDepth         the deepest nesting allowed, the root object being depth 1
     * @param leadingSpaceOk   whether whitespace may come before the root object
     * @return the root object
     * @throws Rejection naming the rule the text breaks
     */
    static JsonObject parseObjectDocument(String text, int maxDepth, boolean leadingSpaceOk) {
        JsonTreeParser p = new JsonTreeParser(text, maxDepth);
        if (leadingSpaceOk) {
            p.skipSpace();
        }
        if (!p.lookingAt('{')) {
            throw new Rejection("rule 5", "the header does not start with '{'");
        }
        JsonObject root = (JsonObject) p.value(1);
        p.skipSpace();
        if (p.at != text.length()) {
            throw new Rejection("rule 9", "something other than JSON whitespace follows the root object");
        }
        return root;
    }

    /** Parses a value that would sit at {@code depth} if it were a container. */
    private JsonValue value(int depth) {
        skipSpace();
        if (at >= text.length()) {
            throw syntax("a value is missing");
        }
        char c = text.charAt(at);
        if (c == '{' || c == '[') {
            if (depth > maxDepth) {
                throw new Rejection("rule 10", "nesting deeper than " + maxDepth);
            }
            return c == '{' ? object(depth) : array(depth);
        }
        if (c == '"') {
            return new JsonString(string());
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            return number();
        }
        for (String word : new String[] {"true", "false", "null"}) {
            if (text.startsWith(word, at)) {
                at += word.length();
                return new JsonLiteral(word);
            }
        }
        throw syntax("no value starts with '" + c + "'");
    }

    private JsonObject object(int depth) {
        at++;
        List<Member> members = new ArrayList<>();
        skipSpace();
        if (lookingAt('}')) {
            at++;
            return new JsonObject(members);
        }
        while (true) {
            skipSpace();
            if (!lookingAt('"')) {
                throw syntax("a name must be a string");
            }
            String name = string();
            skipSpace();
            expect(':');
            members.add(new Member(name, value(depth + 1)));
            skipSpace();
            if (lookingAt('}')) {
                at++;
                return new JsonObject(members);
            }
            expect(',');
        }
    }

    private JsonArray array(int depth) {
        at++;
        List<JsonValue> elements = new ArrayList<>();
        skipSpace();
        if (lookingAt(']')) {
            at++;
            return new JsonArray(elements);
        }
        while (true) {
            elements.add(value(depth + 1));
            skipSpace();
            if (lookingAt(']')) {
                at++;
                return new JsonArray(elements);
            }
            expect(',');
        }
    }

    private String string() {
        at++;
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (at >= text.length()) {
                throw syntax("unterminated string");
            }
            char c = text.charAt(at++);
            if (c == '"') {
                break;
            }
            if (c < 0x20) {
                throw syntax("unescaped control character in a string");
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (at >= text.length()) {
                throw syntax("unterminated escape");
            }
            char e = text.charAt(at++);
            switch (e) {
                case '"' -> sb.append('"');
                case '\\' -> sb.append('\\');
                case '/' -> sb.append('/');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'u' -> sb.append(hexChar());
                default -> throw syntax("invalid escape \\" + e);
            }
        }
        String s = sb.toString();
        requireNoLoneSurrogate(s);
        return s;
    }

    /** Four hex digits, ASCII only: {@code Character.digit} would also take other scripts' digits. */
    private char hexChar() {
        if (at + 4 > text.length()) {
            throw syntax("short \\u escape");
        }
        int v = 0;
        for (int k = 0; k < 4; k++) {
            int d = HEX.indexOf(text.charAt(at + k));
            if (d < 0) {
                throw syntax("\\u escape needs four hex digits");
            }
            v = v * 16 + (d < 16 ? d : d - 6);
        }
        at += 4;
        return (char) v;
    }

    /** Raw text was strict UTF-8, so only escapes can have made a surrogate that is not half of a pair. */
    private static void requireNoLoneSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new Rejection("rule 8", "a \\u escape leaves a lone surrogate");
            }
        }
    }

    /** {@code -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?}, kept as written. */
    private JsonNumber number() {
        int start = at;
        if (lookingAt('-')) {
            at++;
        }
        if (lookingAt('0')) {
            at++;
        } else if (digitsAhead() == 0) {
            throw syntax("a number needs a digit");
        } else {
            at += digitsAhead();
        }
        if (lookingAt('.')) {
            at++;
            requireDigits();
        }
        if (lookingAt('e') || lookingAt('E')) {
            at++;
            if (lookingAt('+') || lookingAt('-')) {
                at++;
            }
            requireDigits();
        }
        return new JsonNumber(text.substring(start, at));
    }

    private void requireDigits() {
        int n = digitsAhead();
        if (n == 0) {
            throw syntax("digits expected in a number");
        }
        at += n;
    }

    private int digitsAhead() {
        int n = 0;
        while (at + n < text.length() && text.charAt(at + n) >= '0' && text.charAt(at + n) <= '9') {
            n++;
        }
        return n;
    }

    private void skipSpace() {
        while (at < text.length() && " \t\n\r".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
    }

    private boolean lookingAt(char c) {
        return at < text.length() && text.charAt(at) == c;
    }

    private void expect(char c) {
        if (!lookingAt(c)) {
            throw syntax("expected '" + c + "'");
        }
        at++;
    }

    private static Rejection syntax(String reason) {
        return new Rejection("rule 8", reason);
    }
}
