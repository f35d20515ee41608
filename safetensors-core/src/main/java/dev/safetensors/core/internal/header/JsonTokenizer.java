package dev.safetensors.core.internal.header;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * A strict RFC 8259 pull tokenizer over UTF-8 bytes that have already passed {@link Utf8Validator}, made for the
 * header's tiny grammar and its hot path.
 *
 * <p>Why not a general JSON library: a safetensors header is one flat object of names, strings, small integer arrays
 * and one string map, and validating it is this library's hot path. Working on the bytes directly lets the validator
 * compare field names and dtypes without creating strings, learn a string's UTF-8 length from its raw length when it
 * holds no escape, parse integers from their digits, and report every error with its byte offset; it runs several
 * times faster than a general streaming parser and allocates nothing of its own per token.
 *
 * <p>Strictness: no comments, single quotes, trailing commas, NaN or Infinity, leading zeros, {@code +} signs,
 * unescaped control characters, unknown escapes, or {@code \}u escapes that leave a lone surrogate (checked as the
 * string is scanned, so also in values that are skipped and never decoded). Nesting deeper than {@code maxDepth} (the root object is depth 1) is refused as soon as the
 * bracket that crosses it is read, so a million {@code [} cost neither stack nor memory.
 *
 * <p>Not thread-safe; one instance per header.
 */
public final class JsonTokenizer {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long LOW_BITS = 0x7F7F7F7F7F7F7F7FL;
    private static final long HIGH_BITS = 0x8080808080808080L;
    private static final long QUOTES = 0x2222222222222222L;
    private static final long BACKSLASHES = 0x5C5C5C5C5C5C5C5CL;
    private static final int EXPECT_VALUE = 0;
    private static final int EXPECT_FIRST_IN_ARRAY = 1;
    private static final int EXPECT_FIRST_IN_OBJECT = 2;
    private static final int EXPECT_NAME = 3;
    private static final int EXPECT_SEPARATOR = 4;
    private static final int DONE = 5;

    private final String source;
    private final byte[] b;
    private final int base;
    private final int end;
    private final int maxDepth;

    private int pos;
    private int state = EXPECT_VALUE;
    private int depth;
    /** One bit per open container below depth 64, set for objects; deeper levels live in {@link #deepKinds}. */
    private long kinds;
    private boolean[] deepKinds;

    private int tokenStart;
    private int textStart;
    private int textEnd;
    private boolean textEscaped;
    private boolean numberPlainInteger;
    /** The value of the last number's integer digits, -1 above 2^63-1; meaningful for a plain integer only. */
    private long numberValue;
    private boolean numberNegative;

    JsonTokenizer(String source, byte[] bytes, int offset, int length, int maxDepth) {
        this.source = source;
        this.b = bytes;
        this.base = offset;
        this.pos = offset;
        this.end = offset + length;
        this.maxDepth = maxDepth;
    }

    /** @return the next token; {@link JsonToken#END} once the root value is complete */
    JsonToken next() throws InvalidHeaderException {
        skipWhitespace();
        switch (state) {
            case DONE:
                return JsonToken.END;
            case EXPECT_SEPARATOR: {
                if (depth == 0) {
                    state = DONE;
                    return JsonToken.END;
                }
                int c = peek("',' or a closing bracket");
                boolean inObject = inObject();
                if (c == ',') {
                    pos++;
                    skipWhitespace();
                    if (inObject) {
                        return name();
                    }
                    return value();
                }
                if (c == (inObject ? '}' : ']')) {
                    tokenStart = pos++;
                    pop();
                    return inObject ? JsonToken.END_OBJECT : JsonToken.END_ARRAY;
                }
                throw syntax("expected ',' or '" + (inObject ? '}' : ']') + "' but found " + describe(c), pos);
            }
            case EXPECT_FIRST_IN_OBJECT: {
                int c = peek("a name or '}'");
                if (c == '}') {
                    tokenStart = pos++;
                    pop();
                    return JsonToken.END_OBJECT;
                }
                return name();
            }
            case EXPECT_FIRST_IN_ARRAY: {
                int c = peek("a value or ']'");
                if (c == ']') {
                    tokenStart = pos++;
                    pop();
                    return JsonToken.END_ARRAY;
                }
                return value();
            }
            default:
                return value();
        }
    }

    /**
     * When the last token opened a container, reads the rest of it, validating it as it goes; after any other
     * value, does nothing.
     */
    void skipValueRest() throws InvalidHeaderException {
        if (state != EXPECT_FIRST_IN_ARRAY && state != EXPECT_FIRST_IN_OBJECT) {
            return;
        }
        int target = depth - 1;
        while (depth > target) {
            next();
        }
    }

    /** @return the offset, relative to the header start, of the first byte of the last token */
    long tokenOffset() {
        return tokenStart - base;
    }

    /** @return the offset, relative to the header start, of the first byte not yet consumed */
    int position() {
        return pos - base;
    }

    /**
     * Continues after a value that the caller has read and checked itself, as if this tokenizer had read it.
     *
     * @param position the offset, relative to the header start, of the first byte after a complete, well-formed
     *                 value that started at {@link #position()} when the last token was a name
     */
    void skipCheckedValue(int position) {
        tokenStart = base + position - 1;
        pos = base + position;
        state = EXPECT_SEPARATOR;
    }

    /** @return the string or name just read, decoded */
    String text() {
        if (!textEscaped) {
            return new String(b, textStart, textEnd - textStart, StandardCharsets.UTF_8);
        }
        return unescape();
    }

    /** @return the {@link NameHash} of the string or name just read, decoded */
    int textHash() {
        if (!textEscaped) {
            return NameHash.of(b, textStart, textEnd);
        }
        byte[] utf8 = unescape().getBytes(StandardCharsets.UTF_8);
        return NameHash.of(utf8, 0, utf8.length);
    }

    /** @return whether the last string holds an escape */
    boolean textEscaped() {
        return textEscaped;
    }

    /** @return the raw byte length of the last string, which is its UTF-8 length when it holds no escape */
    int rawTextLength() {
        return textEnd - textStart;
    }

    /** @return whether the last string, holding no escape, is exactly these ASCII bytes */
    boolean rawTextEquals(byte[] ascii) {
        int n = textEnd - textStart;
        if (textEscaped || n != ascii.length) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (b[textStart + i] != ascii[i]) {
                return false;
            }
        }
        return true;
    }

    /** @return whether the last number is a JSON integer with no sign, fraction or exponent */
    boolean numberIsPlainInteger() {
        return numberPlainInteger;
    }

    /** @return whether the last number has a minus sign */
    boolean numberIsNegative() {
        return numberNegative;
    }

    /** @return the value of the last plain integer, or -1 when it is above 2^63-1 */
    long integerValue() {
        return numberValue;
    }

    /** @return the raw text of the last number, cut for messages */
    String numberText() {
        int n = Math.min(textEnd - textStart, 40);
        return new String(b, textStart, n, StandardCharsets.US_ASCII) + (n < textEnd - textStart ? "..." : "");
    }

    private JsonToken name() throws InvalidHeaderException {
        int c = peek("a name");
        if (c != '"') {
            throw syntax("expected a double-quoted name but found " + describe(c), pos);
        }
        string();
        skipWhitespace();
        if (pos >= end || b[pos] != ':') {
            throw syntax("expected ':' after a name", pos);
        }
        pos++;
        state = EXPECT_VALUE;
        return JsonToken.NAME;
    }

    private JsonToken value() throws InvalidHeaderException {
        int c = peek("a value");
        switch (c) {
            case '{':
                tokenStart = pos++;
                push(true);
                state = EXPECT_FIRST_IN_OBJECT;
                return JsonToken.BEGIN_OBJECT;
            case '[':
                tokenStart = pos++;
                push(false);
                state = EXPECT_FIRST_IN_ARRAY;
                return JsonToken.BEGIN_ARRAY;
            case '"':
                string();
                state = EXPECT_SEPARATOR;
                return JsonToken.STRING;
            case 't':
                literal("true");
                return JsonToken.TRUE;
            case 'f':
                literal("false");
                return JsonToken.FALSE;
            case 'n':
                literal("null");
                return JsonToken.NULL;
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    number();
                    state = EXPECT_SEPARATOR;
                    return JsonToken.NUMBER;
                }
                throw syntax("expected a value but found " + describe(c), pos);
        }
    }

    private void string() throws InvalidHeaderException {
        tokenStart = pos;
        int i = pos + 1;
        boolean escaped = false;
        // whole words of plain bytes first: names are 30 to 80 bytes, escapes and control characters rare
        while (i + 8 <= end && !hasSpecialByte((long) LONGS.get(b, i))) {
            i += 8;
        }
        while (true) {
            if (i >= end) {
                throw syntax("unterminated string", tokenStart);
            }
            byte c = b[i];
            if (c == '"') {
                break;
            }
            if (c == '\\') {
                escaped = true;
                i = escape(i);
                continue;
            }
            if (c >= 0 && c < 0x20) {
                throw syntax("unescaped control character " + describe(c) + " in a string", i);
            }
            i++;
        }
        textStart = tokenStart + 1;
        textEnd = i;
        textEscaped = escaped;
        pos = i + 1;
    }

    /** Checks the form of the escape at {@code i} and returns the index after it. */
    private int escape(int i) throws InvalidHeaderException {
        if (i + 1 >= end) {
            throw syntax("unterminated escape", i);
        }
        switch (b[i + 1]) {
            case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
                return i + 2;
            case 'u': {
                // raw UTF-8 cannot encode a surrogate, so pairing escapes here is the whole lone-surrogate check
                int unit = codeUnit(i);
                if (unit >= 0xDC00 && unit <= 0xDFFF) {
                    throw syntax("a \\u escape leaves a lone surrogate", i);
                }
                if (unit >= 0xD800 && unit <= 0xDBFF) {
                    boolean escapeFollows = i + 7 < end && b[i + 6] == '\\' && b[i + 7] == 'u';
                    int low = escapeFollows ? codeUnit(i + 6) : -1;
                    if (low < 0xDC00 || low > 0xDFFF) {
                        throw syntax("a \\u escape leaves a lone surrogate", i);
                    }
                    return i + 12;
                }
                return i + 6;
            }
            default:
                throw syntax("invalid escape '\\" + (char) (b[i + 1] & 0xff) + "'", i);
        }
    }

    /** @return the UTF-16 code unit of the {@code \}u escape at {@code i}, whose four hex digits it checks */
    private int codeUnit(int i) throws InvalidHeaderException {
        if (i + 5 >= end) {
            throw syntax("unterminated \\u escape", i);
        }
        int unit = 0;
        for (int k = i + 2; k < i + 6; k++) {
            int digit = hex(b[k]);
            if (digit < 0) {
                throw syntax("\\u escape needs four hex digits", i);
            }
            unit = unit << 4 | digit;
        }
        return unit;
    }

    private String unescape() {
        StringBuilder sb = new StringBuilder(textEnd - textStart);
        int i = textStart;
        int runStart = i;
        while (i < textEnd) {
            if (b[i] != '\\') {
                i++;
                continue;
            }
            if (i > runStart) {
                sb.append(new String(b, runStart, i - runStart, StandardCharsets.UTF_8));
            }
            byte e = b[i + 1];
            switch (e) {
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'u' -> sb.append((char) ((hex(b[i + 2]) << 12) | (hex(b[i + 3]) << 8) | (hex(b[i + 4]) << 4)
                        | hex(b[i + 5])));
                default -> sb.append((char) e);
            }
            i += e == 'u' ? 6 : 2;
            runStart = i;
        }
        if (textEnd > runStart) {
            sb.append(new String(b, runStart, textEnd - runStart, StandardCharsets.UTF_8));
        }
        return sb.toString();
    }

    private void number() throws InvalidHeaderException {
        tokenStart = pos;
        int i = pos;
        numberNegative = b[i] == '-';
        if (numberNegative) {
            i++;
        }
        int digitsStart = i;
        if (i >= end || b[i] < '0' || b[i] > '9') {
            throw syntax("a minus sign must be followed by a digit", tokenStart);
        }
        long value = 0;
        if (b[i] == '0') {
            i++;
            if (i < end && b[i] >= '0' && b[i] <= '9') {
                throw syntax("numbers must not have leading zeros", tokenStart);
            }
        } else {
            // the value is folded in as the digits are scanned; past 19 digits it is certainly above 2^63-1
            long v = 0;
            while (i < end && b[i] >= '0' && b[i] <= '9') {
                v = v * 10 + (b[i] - '0');
                i++;
            }
            // 19 digits are below 2^64, so a value that wrapped negative is exactly one above 2^63-1
            value = i - digitsStart > 19 || v < 0 ? -1 : v;
        }
        int digitsEnd = i;
        boolean plain = true;
        if (i < end && b[i] == '.') {
            plain = false;
            i = digits(i + 1, "a decimal point must be followed by a digit");
        }
        if (i < end && (b[i] == 'e' || b[i] == 'E')) {
            plain = false;
            i++;
            if (i < end && (b[i] == '+' || b[i] == '-')) {
                i++;
            }
            i = digits(i, "an exponent needs a digit");
        }
        if (i < end && !isDelimiter(b[i])) {
            throw syntax("unexpected " + describe(b[i]) + " after a number", i);
        }
        numberPlainInteger = plain && !numberNegative;
        numberValue = value;
        textStart = numberPlainInteger ? digitsStart : tokenStart;
        textEnd = numberPlainInteger ? digitsEnd : i;
        pos = i;
    }

    private int digits(int i, String message) throws InvalidHeaderException {
        if (i >= end || b[i] < '0' || b[i] > '9') {
            throw syntax(message, i);
        }
        while (i < end && b[i] >= '0' && b[i] <= '9') {
            i++;
        }
        return i;
    }

    private void literal(String word) throws InvalidHeaderException {
        tokenStart = pos;
        int n = word.length();
        for (int k = 0; k < n; k++) {
            if (pos + k >= end || b[pos + k] != word.charAt(k)) {
                throw syntax("invalid literal (only true, false and null are allowed)", pos);
            }
        }
        if (pos + n < end && !isDelimiter(b[pos + n])) {
            throw syntax("invalid literal (only true, false and null are allowed)", pos);
        }
        pos += n;
        state = EXPECT_SEPARATOR;
    }

    private void push(boolean object) throws InvalidHeaderException {
        if (depth >= maxDepth) {
            throw new InvalidHeaderException(ErrorCode.TOO_DEEP, source, "nesting deeper than " + maxDepth
                    + " levels", null, tokenStart - base);
        }
        if (depth < 64) {
            kinds = object ? kinds | (1L << depth) : kinds & ~(1L << depth);
        } else {
            if (deepKinds == null || deepKinds.length <= depth - 64) {
                deepKinds = java.util.Arrays.copyOf(deepKinds == null ? new boolean[0] : deepKinds,
                        Math.min(maxDepth, Math.max(64, (depth - 64) * 2 + 1)));
            }
            deepKinds[depth - 64] = object;
        }
        depth++;
    }

    private void pop() {
        depth--;
        state = EXPECT_SEPARATOR;
    }

    private boolean inObject() {
        int top = depth - 1;
        return top < 64 ? (kinds & (1L << top)) != 0 : deepKinds[top - 64];
    }

    private void skipWhitespace() {
        while (pos < end) {
            byte c = b[pos];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return;
            }
            pos++;
        }
    }

    private int peek(String expected) throws InvalidHeaderException {
        if (pos >= end) {
            throw syntax("unexpected end of the header, expected " + expected, pos);
        }
        return b[pos] & 0xff;
    }

    /** @return whether one of the eight bytes is a quote, a backslash or a control character */
    private static boolean hasSpecialByte(long w) {
        long x = w & LOW_BITS;
        long quote = x ^ QUOTES;
        long backslash = x ^ BACKSLASHES;
        // per byte, the high bit of a 7-bit sum: set unless the low seven bits are zero; never carries over
        long special = ~((quote + LOW_BITS) & (backslash + LOW_BITS) & (x + 0x6060606060606060L));
        // bytes at or above 0x80 (UTF-8 sequences) are never special
        return (special & ~w & HIGH_BITS) != 0;
    }

    private static boolean isDelimiter(byte c) {
        return c == ',' || c == ']' || c == '}' || c == ' ' || c == '\n' || c == '\r' || c == '\t';
    }

    private static int hex(byte c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    private static String describe(int c) {
        int u = c & 0xff;
        if (u >= 0x21 && u < 0x7f) {
            return "'" + (char) u + "'";
        }
        return String.format("byte 0x%02x", u);
    }

    private InvalidHeaderException syntax(String detail, int at) {
        return new InvalidHeaderException(ErrorCode.INVALID_JSON, source, "malformed JSON: " + detail, null, at - base);
    }
}
