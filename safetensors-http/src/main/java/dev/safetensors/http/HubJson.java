package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict, bounded reader of the Hub API's small JSON answers (the repository listing), to plain values: objects
 * as {@link Map}, arrays as {@link List}, strings, numbers as their text, booleans and {@code null}. The HTTP module
 * depends on nothing but the JDK and the api module, so it cannot use the core's parsers; the answers it reads are
 * bounded by the caller ({@link HubRepository#MAX_LISTING_BYTES}) and nesting by {@value #MAX_DEPTH}. Checkpoint
 * indexes are never read here: they are parsed in the core, by one parser.
 *
 * <p>Refuses what RFC 8259 refuses (comments, trailing commas, unquoted names, lone surrogates, control characters
 * in strings, duplicate names) with a {@link StorageException} {@link ErrorCode#SERVER_ERROR}: a malformed answer is
 * the server's fault. Not thread-safe; one instance per answer.
 */
final class HubJson {
    static final int MAX_DEPTH = 64;
    private final String name;
    private final String s;
    private int pos;

    private HubJson(String name, String s) {
        this.name = name;
        this.s = s;
    }

    /**
     * @param name for messages
     * @param text the whole answer
     * @return its value
     * @throws StorageException with {@code SERVER_ERROR} if it is not one JSON value
     */
    static Object parse(String name, String text) throws StorageException {
        HubJson json = new HubJson(name, text);
        json.space();
        Object v = json.value(1);
        json.space();
        if (json.pos != text.length()) {
            throw json.bad("data after the value");
        }
        return v;
    }

    private Object value(int depth) throws StorageException {
        if (depth > MAX_DEPTH) {
            throw bad("nested deeper than " + MAX_DEPTH);
        }
        char c = peek();
        switch (c) {
            case '{':
                return object(depth);
            case '[':
                return array(depth);
            case '"':
                return string();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", null);
            default:
                return number();
        }
    }

    private Map<String, Object> object(int depth) throws StorageException {
        pos++;
        Map<String, Object> map = new LinkedHashMap<>();
        space();
        if (peek() == '}') {
            pos++;
            return map;
        }
        for (;;) {
            space();
            if (peek() != '"') {
                throw bad("expected a name");
            }
            String key = string();
            space();
            expect(':');
            space();
            if (map.containsKey(key)) {
                throw bad("duplicate name");
            }
            map.put(key, value(depth + 1));
            space();
            if (peek() == ',') {
                pos++;
            } else {
                expect('}');
                return map;
            }
        }
    }

    private List<Object> array(int depth) throws StorageException {
        pos++;
        List<Object> list = new ArrayList<>();
        space();
        if (peek() == ']') {
            pos++;
            return list;
        }
        for (;;) {
            space();
            list.add(value(depth + 1));
            space();
            if (peek() == ',') {
                pos++;
            } else {
                expect(']');
                return list;
            }
        }
    }

    private String string() throws StorageException {
        pos++;
        StringBuilder sb = new StringBuilder();
        for (;;) {
            char c = next();
            if (c == '"') {
                break;
            }
            if (c < 0x20) {
                throw bad("control character in a string");
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            char e = next();
            switch (e) {
                case '"', '\\', '/' -> sb.append(e);
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'u' -> sb.append(hex4());
                default -> throw bad("unknown escape");
            }
        }
        String out = sb.toString();
        for (int i = 0; i < out.length(); i++) {
            char c = out.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < out.length() && Character.isLowSurrogate(out.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw bad("lone surrogate in a string");
            }
        }
        return out;
    }

    private char hex4() throws StorageException {
        if (pos + 4 > s.length()) {
            throw bad("truncated \\u escape");
        }
        int v = 0;
        for (int i = 0; i < 4; i++) {
            int d = Character.digit(s.charAt(pos++), 16);
            if (d < 0) {
                throw bad("bad \\u escape");
            }
            v = v * 16 + d;
        }
        return (char) v;
    }

    private String number() throws StorageException {
        int start = pos;
        if (pos < s.length() && s.charAt(pos) == '-') {
            pos++;
        }
        int digits = pos;
        while (pos < s.length() && Character.isDigit(s.charAt(pos))) {
            pos++;
        }
        if (pos == digits || (s.charAt(digits) == '0' && pos - digits > 1)) {
            throw bad("expected a value");
        }
        if (pos < s.length() && s.charAt(pos) == '.') {
            pos++;
            int frac = pos;
            while (pos < s.length() && Character.isDigit(s.charAt(pos))) {
                pos++;
            }
            if (pos == frac) {
                throw bad("bad number");
            }
        }
        if (pos < s.length() && (s.charAt(pos) == 'e' || s.charAt(pos) == 'E')) {
            pos++;
            if (pos < s.length() && (s.charAt(pos) == '+' || s.charAt(pos) == '-')) {
                pos++;
            }
            int exp = pos;
            while (pos < s.length() && Character.isDigit(s.charAt(pos))) {
                pos++;
            }
            if (pos == exp) {
                throw bad("bad number");
            }
        }
        return s.substring(start, pos);
    }

    private Object literal(String word, Object v) throws StorageException {
        if (!s.startsWith(word, pos)) {
            throw bad("expected a value");
        }
        pos += word.length();
        return v;
    }

    private void space() {
        while (pos < s.length()) {
            char c = s.charAt(pos);
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return;
            }
            pos++;
        }
    }

    private char peek() throws StorageException {
        if (pos >= s.length()) {
            throw bad("unexpected end");
        }
        return s.charAt(pos);
    }

    private char next() throws StorageException {
        char c = peek();
        pos++;
        return c;
    }

    private void expect(char c) throws StorageException {
        if (next() != c) {
            throw bad("expected '" + c + "'");
        }
    }

    private StorageException bad(String why) {
        return new StorageException(ErrorCode.SERVER_ERROR, name, "the Hub's answer is not valid JSON: " + why
                + " at character " + pos);
    }
}
