package dev.safetensors.core;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.Limits;
import dev.safetensors.SafetensorsException;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;
import dev.safetensors.UnsupportedDtypeException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.StreamConstraintsException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Rules 5 and 7 to 21 over the header bytes: strict UTF-8, then one streaming pass over strict JSON that checks
 * every entry as it goes, then one sort for the layout. The first rule broken in document order is reported; a
 * value of the wrong JSON type is read to its end first, so nesting and syntax errors inside it come first.
 *
 * <p>An unsupported dtype does not stop the pass: a file is reported as unsupported only when it breaks no other
 * rule. A dtype name the format does not define at all leaves the layout unverifiable, so the layout check is then
 * skipped. Not thread-safe; one instance per header.
 */
final class HeaderParser {
    private static final long[] NO_DIMS = new long[0];

    private final String source;
    private final Limits limits;
    private final byte[] bytes;
    private final int offset;
    private final int length;
    private final long fileSize;

    private JsonParser parser;
    private boolean mayHoldEscapes;
    private long[] dims = new long[16];
    private UnsupportedDtypeException unsupported;
    private boolean unknownDtype;

    HeaderParser(String source, Limits limits, byte[] bytes, int offset, int length, long fileSize) {
        this.source = source;
        this.limits = limits;
        this.bytes = bytes;
        this.offset = offset;
        this.length = length;
        this.fileSize = fileSize;
    }

    SafetensorsHeader parse() throws SafetensorsException {
        Utf8Validator.Result utf8 = Utf8Validator.validate(bytes, offset, length);
        if (!utf8.valid()) {
            throw invalid(ErrorCode.INVALID_UTF8, "the header is not valid UTF-8 (overlong, surrogate, truncated or"
                    + " out-of-range sequence)", null, utf8.errorAt());
        }
        mayHoldEscapes = utf8.hasBackslash();
        checkStart();

        List<TensorInfo> tensors = new ArrayList<>();
        Map<String, String> metadata = Collections.emptyMap();
        try (JsonParser p = JsonFactories.forLimits(limits).createParser(ObjectReadContext.empty(), bytes, offset,
                length)) {
            parser = p;
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw invalid(ErrorCode.INVALID_JSON, "the header is not a JSON object", null, tokenOffset());
            }
            Set<String> names = new HashSet<>();
            int entries = 0;
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                long at = tokenOffset();
                String name = p.currentName();
                if (++entries > limits.maxEntries()) {
                    throw invalid(ErrorCode.TOO_MANY_ENTRIES, "more than " + limits.maxEntries()
                            + " root entries", null, at);
                }
                boolean isMetadata = "__metadata__".equals(name);
                if (!isMetadata) {
                    checkString(name, limits.maxStringBytes(), "name", name, at);
                }
                if (!names.add(name)) {
                    throw invalid(ErrorCode.DUPLICATE_KEY, "the name appears twice in the header", name, at);
                }
                if (isMetadata) {
                    metadata = readMetadata();
                } else {
                    TensorInfo t = readTensor(name, at);
                    if (t != null) {
                        tensors.add(t);
                    }
                }
            }
            checkPadding(p.currentLocation().getByteOffset());
        } catch (JacksonException e) {
            throw translate(e);
        }
        long payloadLength = fileSize - 8 - length;
        if (!unknownDtype) {
            TensorLayout.sortAndCheck(source, tensors, payloadLength);
        }
        if (unsupported != null) {
            throw unsupported;
        }
        return new SafetensorsHeader(source, fileSize, length, tensors, metadata);
    }

    /** Rule 5: the header starts with '{' (after JSON whitespace, under the official policy only). */
    private void checkStart() throws InvalidHeaderException {
        int i = 0;
        if (limits.allowLeadingWhitespace()) {
            while (i < length && isJsonSpace(bytes[offset + i])) {
                i++;
            }
        }
        if (i >= length || bytes[offset + i] != '{') {
            String why = i >= length ? "the header is empty or blank" : "the header does not start with '{'";
            if (!limits.allowLeadingWhitespace() && length > 0 && isJsonSpace(bytes[offset])) {
                why += " (leading whitespace is accepted only by the official policy)";
            }
            throw invalid(ErrorCode.HEADER_START, why, null, i);
        }
    }

    /** Rule 9: only JSON whitespace may follow the root object. */
    private void checkPadding(long end) throws InvalidHeaderException {
        for (long i = end; i < length; i++) {
            byte c = bytes[offset + (int) i];
            if (!isJsonSpace(c)) {
                String what = c == 0 ? "a NUL byte (pad with spaces)" : "'" + (char) (c & 0xff) + "'";
                throw invalid(ErrorCode.INVALID_JSON, "only whitespace may follow the header object, found " + what,
                        null, i);
            }
        }
    }

    private Map<String, String> readMetadata() throws SafetensorsException {
        if (parser.nextToken() != JsonToken.START_OBJECT) {
            throw wrongType(ErrorCode.INVALID_METADATA, "__metadata__ is not an object", null);
        }
        Map<String, String> metadata = new LinkedHashMap<>();
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            long at = tokenOffset();
            String key = parser.currentName();
            if (metadata.size() >= limits.maxMetadataKeys()) {
                throw invalid(ErrorCode.TOO_MANY_METADATA_KEYS, "more than " + limits.maxMetadataKeys()
                        + " metadata keys", null, at);
            }
            checkString(key, limits.maxStringBytes(), "metadata key", null, at);
            if (metadata.containsKey(key)) {
                throw invalid(ErrorCode.DUPLICATE_KEY, "metadata key \"" + clip(key) + "\" appears twice", null, at);
            }
            if (parser.nextToken() != JsonToken.VALUE_STRING) {
                throw wrongType(ErrorCode.INVALID_METADATA, "the value of metadata key \"" + clip(key)
                        + "\" is not a string", null);
            }
            String value = parser.getText();
            checkString(value, limits.maxMetadataValueBytes(), "metadata value", null, tokenOffset());
            metadata.put(key, value);
        }
        return metadata;
    }

    /** @return the entry, or {@code null} when its dtype is not one the format defines */
    private TensorInfo readTensor(String name, long at) throws SafetensorsException {
        if (parser.nextToken() != JsonToken.START_OBJECT) {
            throw wrongType(ErrorCode.INVALID_TENSOR_ENTRY, "the entry is not an object", name);
        }
        String dtypeName = null;
        long dtypeAt = -1;
        long[] shape = null;
        long[] range = null;
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String field = parser.currentName();
            long fieldAt = tokenOffset();
            switch (field) {
                case "dtype" -> {
                    requireFirst(dtypeName == null, field, name, fieldAt);
                    if (parser.nextToken() != JsonToken.VALUE_STRING) {
                        throw wrongType(ErrorCode.INVALID_TENSOR_ENTRY, "dtype is not a string", name);
                    }
                    dtypeAt = tokenOffset();
                    dtypeName = parser.getText();
                    checkString(dtypeName, limits.maxStringBytes(), "dtype", name, dtypeAt);
                }
                case "shape" -> {
                    requireFirst(shape == null, field, name, fieldAt);
                    shape = readShape(name);
                }
                case "data_offsets" -> {
                    requireFirst(range == null, field, name, fieldAt);
                    range = readOffsets(name);
                }
                default -> throw invalid(ErrorCode.INVALID_TENSOR_ENTRY, "unexpected field \"" + clip(field)
                        + "\" (a tensor entry has exactly dtype, shape and data_offsets)", name, fieldAt);
            }
        }
        if (dtypeName == null || shape == null || range == null) {
            String missing = dtypeName == null ? "dtype" : shape == null ? "shape" : "data_offsets";
            throw invalid(ErrorCode.INVALID_TENSOR_ENTRY, "the entry has no " + missing, name, at);
        }
        return checkEntry(name, dtypeName, dtypeAt, shape, range[0], range[1], at);
    }

    /** Rules 17, 19 and 20 for one complete entry. */
    private TensorInfo checkEntry(String name, String dtypeName, long dtypeAt, long[] shape, long begin, long end,
                                  long at) throws SafetensorsException {
        if (begin > end) {
            throw invalid(ErrorCode.INVALID_OFFSETS, "data_offsets begin " + begin + " is after end " + end, name, at);
        }
        long count = ShapeArithmetic.elementCount(shape);
        if (count == ShapeArithmetic.OVERFLOW) {
            throw invalid(ErrorCode.OVERFLOW, "the element count of shape " + Arrays.toString(shape)
                    + " overflows a signed 64-bit integer", name, at);
        }
        DType dtype = DType.fromName(dtypeName).orElse(null);
        if (dtype == null || !limits.acceptedDtypes().contains(dtype)) {
            if (unsupported == null) {
                unsupported = new UnsupportedDtypeException(ErrorCode.UNSUPPORTED_DTYPE, source, "dtype \""
                        + clip(dtypeName) + "\" is not supported" + (dtype == null ? "" : " by this policy")
                        + "; accepted: " + acceptedNames(), name, dtypeAt);
            }
            if (dtype == null) {
                unknownDtype = true;
                return null;
            }
        }
        long bits = ShapeArithmetic.multiply(count, dtype.bits());
        if (bits == ShapeArithmetic.OVERFLOW) {
            throw invalid(ErrorCode.OVERFLOW, "the size in bits of " + count + " " + dtype
                    + " elements overflows a signed 64-bit integer", name, at);
        }
        if (bits % 8 != 0) {
            throw invalid(ErrorCode.MISALIGNED, count + " elements of " + dtype + " are " + bits
                    + " bits, not a whole number of bytes", name, at);
        }
        if (end - begin != bits / 8) {
            throw invalid(ErrorCode.LENGTH_MISMATCH, "data_offsets [" + begin + ", " + end + ") hold "
                    + (end - begin) + " bytes, but " + dtype + Arrays.toString(shape) + " needs " + bits / 8,
                    name, at);
        }
        return new TensorInfo(name, dtype, shape, begin, end, count);
    }

    private String acceptedNames() {
        return limits.acceptedDtypes().stream().map(Enum::name).collect(Collectors.joining(", "));
    }

    private long[] readShape(String name) throws SafetensorsException {
        if (parser.nextToken() != JsonToken.START_ARRAY) {
            throw wrongType(ErrorCode.INVALID_TENSOR_ENTRY, "shape is not an array", name);
        }
        int rank = 0;
        JsonToken t;
        while ((t = parser.nextToken()) != JsonToken.END_ARRAY) {
            if (rank >= limits.maxRank()) {
                throw invalid(ErrorCode.RANK_TOO_LARGE, "shape has more than " + limits.maxRank() + " dimensions",
                        name, tokenOffset());
            }
            long d = readCount(t, ErrorCode.INVALID_TENSOR_ENTRY, "shape", name);
            if (rank == dims.length) {
                dims = Arrays.copyOf(dims, rank * 2);
            }
            dims[rank++] = d;
        }
        return rank == 0 ? NO_DIMS : Arrays.copyOf(dims, rank);
    }

    private long[] readOffsets(String name) throws SafetensorsException {
        if (parser.nextToken() != JsonToken.START_ARRAY) {
            throw wrongType(ErrorCode.INVALID_OFFSETS, "data_offsets is not an array", name);
        }
        long[] range = new long[2];
        int n = 0;
        JsonToken t;
        while ((t = parser.nextToken()) != JsonToken.END_ARRAY) {
            if (n == 2) {
                throw invalid(ErrorCode.INVALID_OFFSETS, "data_offsets has more than two numbers", name,
                        tokenOffset());
            }
            range[n++] = readCount(t, ErrorCode.INVALID_OFFSETS, "data_offsets", name);
        }
        if (n != 2) {
            throw invalid(ErrorCode.INVALID_OFFSETS, "data_offsets has " + n + " numbers, not two", name,
                    tokenOffset());
        }
        return range;
    }

    /** Rule 18: a plain JSON integer literal between 0 and 2^63-1, parsed from the token text, never by Jackson. */
    private long readCount(JsonToken t, ErrorCode wrongTypeCode, String field, String name)
            throws SafetensorsException {
        long at = tokenOffset();
        if (t == JsonToken.VALUE_NUMBER_FLOAT) {
            throw invalid(ErrorCode.INVALID_NUMBER, field + " holds " + clip(parser.getText())
                    + ", which is not a plain integer", name, at);
        }
        if (t != JsonToken.VALUE_NUMBER_INT) {
            throw wrongType(wrongTypeCode, field + " holds a " + describe(t) + ", not an integer", name);
        }
        char[] text = parser.getTextCharacters();
        int from = parser.getTextOffset();
        int len = parser.getTextLength();
        if (text[from] == '-') {
            throw invalid(ErrorCode.INVALID_NUMBER, field + " holds the negative number " + clip(parser.getText()),
                    name, at);
        }
        if (len > 19) {
            throw invalid(ErrorCode.INVALID_NUMBER, field + " holds a number above 2^63-1", name, at);
        }
        long v = 0;
        for (int i = from; i < from + len; i++) {
            v = v * 10 + (text[i] - '0');
        }
        if (v < 0) {
            throw invalid(ErrorCode.INVALID_NUMBER, field + " holds a number above 2^63-1", name, at);
        }
        return v;
    }

    private void requireFirst(boolean first, String field, String name, long at) throws InvalidHeaderException {
        if (!first) {
            throw invalid(ErrorCode.DUPLICATE_KEY, "field \"" + field + "\" appears twice", name, at);
        }
    }

    /**
     * Rules 8 and 12-13 for one decoded string: its UTF-8 length is within {@code maxBytes}, and no {@code \}u
     * escape left a lone surrogate. Counting is skipped when the UTF-16 length alone proves the bound.
     */
    private void checkString(String s, int maxBytes, String what, String tensor, long at)
            throws InvalidHeaderException {
        int n = s.length();
        if (n > maxBytes) {
            throw tooLong(what, maxBytes, tensor, at);
        }
        if (!mayHoldEscapes && (long) n * 3 <= maxBytes) {
            return;
        }
        long utf8 = 0;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                utf8++;
            } else if (c < 0x800) {
                utf8 += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                utf8 += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                throw invalid(ErrorCode.INVALID_JSON, "a \\u escape in the " + what + " leaves a lone surrogate",
                        tensor, at);
            } else {
                utf8 += 3;
            }
        }
        if (utf8 > maxBytes) {
            throw tooLong(what, maxBytes, tensor, at);
        }
    }

    private InvalidHeaderException tooLong(String what, int maxBytes, String tensor, long at) {
        return invalid(ErrorCode.STRING_TOO_LONG, "the " + what + " is longer than " + maxBytes + " UTF-8 bytes",
                tensor, at);
    }

    /** Reads the offending value to its end (so nesting and syntax errors inside it win), then reports it. */
    private InvalidHeaderException wrongType(ErrorCode code, String detail, String tensor) {
        long at = tokenOffset();
        JsonToken t = parser.currentToken();
        if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
            parser.skipChildren();
        }
        return invalid(code, detail, tensor, at);
    }

    private long tokenOffset() {
        return parser.currentTokenLocation().getByteOffset();
    }

    private InvalidHeaderException invalid(ErrorCode code, String detail, String tensor, long at) {
        return new InvalidHeaderException(code, source, detail, tensor, at);
    }

    private InvalidHeaderException translate(JacksonException e) {
        TokenStreamLocation loc = e.getLocation();
        long at = loc == null ? -1 : loc.getByteOffset();
        String message = e.getOriginalMessage();
        String firstLine = message == null ? "malformed JSON" : message.lines().findFirst().orElse(message);
        if (e instanceof StreamConstraintsException && firstLine.toLowerCase(java.util.Locale.ROOT).contains("nesting depth")) {
            return invalid(ErrorCode.TOO_DEEP, "nesting deeper than " + limits.maxDepth() + " levels", null, at);
        }
        return invalid(ErrorCode.INVALID_JSON, "malformed JSON: " + clip(firstLine), null, at);
    }

    private static String describe(JsonToken t) {
        return switch (t) {
            case START_ARRAY -> "array";
            case START_OBJECT -> "object";
            case VALUE_STRING -> "string";
            case VALUE_TRUE, VALUE_FALSE -> "boolean";
            case VALUE_NULL -> "null";
            default -> String.valueOf(t);
        };
    }

    private static boolean isJsonSpace(byte c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }

    private static String clip(String s) {
        return s.length() <= 80 ? s : s.substring(0, 80) + "...";
    }
}
