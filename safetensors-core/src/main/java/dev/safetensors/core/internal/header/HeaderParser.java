package dev.safetensors.core.internal.header;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.Limits;
import dev.safetensors.SafetensorsException;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;
import dev.safetensors.UnsupportedDtypeException;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Rules 5 and 7 to 21 over the header bytes: strict UTF-8, then one pass of {@link JsonTokenizer} that checks every
 * entry as it is read (an entry of the shape writers produce through {@link CanonicalEntry}, without tokens), then
 * one sort for the layout. Root names are checked for duplicates in a {@link NameTable}, which holds no references.
 * The first rule broken in document order is reported; a value of the wrong JSON type is read to its end first, so
 * nesting and syntax errors inside it come first.
 *
 * <p>An unsupported dtype does not stop the pass: a file is reported as unsupported only when it breaks no other
 * rule. A dtype name the format does not define at all leaves that entry's byte length unverifiable, but its range
 * still takes part in the layout check. Not thread-safe; one instance per header.
 */
public final class HeaderParser {
    private static final byte[] METADATA = ascii("__metadata__");
    private static final byte[] DTYPE = ascii("dtype");
    private static final byte[] SHAPE = ascii("shape");
    private static final byte[] DATA_OFFSETS = ascii("data_offsets");
    private static final DType[] DTYPES = DtypeNames.DTYPES;
    private static final byte[][] DTYPE_NAMES = DtypeNames.ASCII;

    private final String source;
    private final Limits limits;
    private final byte[] bytes;
    private final int offset;
    private final int length;
    private final long fileSize;

    private JsonTokenizer json;
    private CanonicalEntry canonical;
    private long[] dims = new long[16];
    /** Reused arrays of each rank seen: {@link TensorInfo} copies the shape it is given, so one copy is enough. */
    private long[][] shapesByRank = new long[17][];
    private long offsetBegin;
    private long offsetEnd;
    private UnsupportedDtypeException unsupported;
    /** The ranges of entries whose dtype the format does not define; they have no {@link TensorInfo}. */
    private final List<TensorLayout.Span> undefinedDtypeSpans = new ArrayList<>();

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
        checkStart();
        json = new JsonTokenizer(source, bytes, offset, length, limits.maxDepth());
        json.next();
        canonical = new CanonicalEntry(bytes, offset + length, limits.maxRank(), limits.maxStringBytes());

        // a tensor entry has ten quotes: the entry count of a header of tensors, more when metadata has quotes too,
        // and never above the policy's limit, so that the table and the list rarely grow and never grow large in vain
        int expected = Math.min(limits.maxEntries(), utf8.quotes() / 10) + 1;
        List<TensorInfo> tensors = new ArrayList<>(expected);
        // the names of root entries that are not tensors: __metadata__ and entries of undefined dtypes
        List<String> otherNames = new ArrayList<>();
        // a reference is a tensor's index + 1, or -(index + 1) in otherNames
        NameTable names = new NameTable(expected,
                ref -> ref > 0 ? tensors.get(ref - 1).name() : otherNames.get(-ref - 1));
        Map<String, String> metadata = Collections.emptyMap();
        int entries = 0;
        while (json.next() == JsonToken.NAME) {
            long at = json.tokenOffset();
            if (++entries > limits.maxEntries()) {
                throw invalid(ErrorCode.TOO_MANY_ENTRIES, "more than " + limits.maxEntries() + " root entries", null,
                        at);
            }
            boolean isMetadata = json.rawTextEquals(METADATA);
            if (!isMetadata) {
                checkLength(limits.maxStringBytes(), "name", null, at);
            }
            String name = json.text();
            int hash = json.textHash();
            int slot = names.find(name, hash);
            if (slot < 0) {
                throw invalid(ErrorCode.DUPLICATE_KEY, "the name appears twice in the header", name, at);
            }
            TensorInfo info = null;
            if (isMetadata || "__metadata__".equals(name)) {
                metadata = readMetadata();
            } else {
                info = readTensor(name, at);
            }
            if (info != null) {
                tensors.add(info);
                names.insert(slot, hash, tensors.size());
            } else {
                otherNames.add(name);
                names.insert(slot, hash, -otherNames.size());
            }
        }
        checkPadding(json.position());

        long payloadLength = fileSize - 8 - length;
        if (undefinedDtypeSpans.isEmpty()) {
            TensorLayout.sortAndCheck(source, tensors, payloadLength);
        } else {
            List<TensorLayout.Span> spans = new ArrayList<>(undefinedDtypeSpans);
            tensors.forEach(t -> spans.add(new TensorLayout.Span(t.name(), t.begin(), t.end())));
            TensorLayout.checkSpans(source, spans, payloadLength);
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
    private void checkPadding(int end) throws InvalidHeaderException {
        for (int i = end; i < length; i++) {
            byte c = bytes[offset + i];
            if (!isJsonSpace(c)) {
                String what = c == 0 ? "a NUL byte (pad with spaces)"
                        : c > 0x20 && c < 0x7f ? "'" + (char) c + "'" : String.format("byte 0x%02x", c & 0xff);
                throw invalid(ErrorCode.INVALID_JSON, "only whitespace may follow the header object, found " + what,
                        null, i);
            }
        }
    }

    private Map<String, String> readMetadata() throws SafetensorsException {
        if (json.next() != JsonToken.BEGIN_OBJECT) {
            throw wrongType(ErrorCode.INVALID_METADATA, "__metadata__ is not an object", null);
        }
        Map<String, String> metadata = new LinkedHashMap<>();
        while (json.next() == JsonToken.NAME) {
            long at = json.tokenOffset();
            if (metadata.size() >= limits.maxMetadataKeys()) {
                throw invalid(ErrorCode.TOO_MANY_METADATA_KEYS, "more than " + limits.maxMetadataKeys()
                        + " metadata keys", null, at);
            }
            checkLength(limits.maxStringBytes(), "metadata key", null, at);
            String key = json.text();
            if (metadata.containsKey(key)) {
                throw invalid(ErrorCode.DUPLICATE_KEY, "metadata key \"" + clip(key) + "\" appears twice", null, at);
            }
            if (json.next() != JsonToken.STRING) {
                throw wrongType(ErrorCode.INVALID_METADATA, "the value of metadata key \"" + clip(key)
                        + "\" is not a string", null);
            }
            checkLength(limits.maxMetadataValueBytes(), "metadata value", null, json.tokenOffset());
            metadata.put(key, json.text());
        }
        return metadata;
    }

    /** @return the entry, or {@code null} when its dtype is not one the format defines */
    private TensorInfo readTensor(String name, long at) throws SafetensorsException {
        int start = json.position();
        int after = canonical.read(offset + start);
        if (after >= 0) {
            json.skipCheckedValue(after - offset);
            return checkEntry(name, canonical.dtype(), null, start + CanonicalEntry.dtypeQuote(),
                    shapeOfRank(canonical.dims(), canonical.rank()), canonical.begin(), canonical.end(), at);
        }
        if (json.next() != JsonToken.BEGIN_OBJECT) {
            throw wrongType(ErrorCode.INVALID_TENSOR_ENTRY, "the entry is not an object", name);
        }
        boolean haveDtype = false;
        DType dtype = null;
        String unknownDtypeName = null;
        long dtypeAt = -1;
        long[] shape = null;
        boolean haveOffsets = false;
        while (json.next() == JsonToken.NAME) {
            long fieldAt = json.tokenOffset();
            if (json.rawTextEquals(DTYPE) || (json.textEscaped() && json.text().equals("dtype"))) {
                requireFirst(!haveDtype, "dtype", name, fieldAt);
                haveDtype = true;
                if (json.next() != JsonToken.STRING) {
                    throw wrongType(ErrorCode.INVALID_TENSOR_ENTRY, "dtype is not a string", name);
                }
                dtypeAt = json.tokenOffset();
                checkLength(limits.maxStringBytes(), "dtype", name, dtypeAt);
                dtype = lookupDtype();
                if (dtype == null) {
                    unknownDtypeName = json.text();
                }
            } else if (json.rawTextEquals(SHAPE) || (json.textEscaped() && json.text().equals("shape"))) {
                requireFirst(shape == null, "shape", name, fieldAt);
                shape = readShape(name);
            } else if (json.rawTextEquals(DATA_OFFSETS)
                    || (json.textEscaped() && json.text().equals("data_offsets"))) {
                requireFirst(!haveOffsets, "data_offsets", name, fieldAt);
                readOffsets(name);
                haveOffsets = true;
            } else {
                throw invalid(ErrorCode.INVALID_TENSOR_ENTRY, "unexpected field \"" + clip(json.text())
                        + "\" (a tensor entry has exactly dtype, shape and data_offsets)", name, fieldAt);
            }
        }
        if (!haveDtype || shape == null || !haveOffsets) {
            String missing = !haveDtype ? "dtype" : shape == null ? "shape" : "data_offsets";
            throw invalid(ErrorCode.INVALID_TENSOR_ENTRY, "the entry has no " + missing, name, at);
        }
        return checkEntry(name, dtype, unknownDtypeName, dtypeAt, shape, offsetBegin, offsetEnd, at);
    }

    /** @return the dtype the last string names, or {@code null} for a name the format does not define */
    private DType lookupDtype() {
        for (int i = 0; i < DTYPES.length; i++) {
            if (json.rawTextEquals(DTYPE_NAMES[i])) {
                return DTYPES[i];
            }
        }
        return json.textEscaped() ? DType.fromName(json.text()).orElse(null) : null;
    }

    /** Rules 17, 19 and 20 for one complete entry. */
    private TensorInfo checkEntry(String name, DType dtype, String unknownName, long dtypeAt, long[] shape,
                                  long begin, long end, long at) throws SafetensorsException {
        if (begin > end) {
            throw invalid(ErrorCode.INVALID_OFFSETS, "data_offsets begin " + begin + " is after end " + end, name, at);
        }
        long count = ShapeArithmetic.elementCount(shape);
        if (count == ShapeArithmetic.OVERFLOW) {
            throw invalid(ErrorCode.OVERFLOW, "the element count of shape " + Arrays.toString(shape)
                    + " overflows a signed 64-bit integer", name, at);
        }
        if (dtype == null || !limits.acceptedDtypes().contains(dtype)) {
            if (unsupported == null) {
                String shown = dtype == null ? unknownName : dtype.name();
                unsupported = new UnsupportedDtypeException(ErrorCode.UNSUPPORTED_DTYPE, source, "dtype \""
                        + clip(shown) + "\" is not supported" + (dtype == null ? "" : " by this policy")
                        + "; accepted: " + acceptedNames(), name, dtypeAt);
            }
            if (dtype == null) {
                undefinedDtypeSpans.add(new TensorLayout.Span(name, begin, end));
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
        if (json.next() != JsonToken.BEGIN_ARRAY) {
            throw wrongType(ErrorCode.INVALID_TENSOR_ENTRY, "shape is not an array", name);
        }
        int rank = 0;
        JsonToken t;
        while ((t = json.next()) != JsonToken.END_ARRAY) {
            if (rank >= limits.maxRank()) {
                throw invalid(ErrorCode.RANK_TOO_LARGE, "shape has more than " + limits.maxRank() + " dimensions",
                        name, json.tokenOffset());
            }
            long d = readCount(t, ErrorCode.INVALID_TENSOR_ENTRY, "shape", name);
            if (rank == dims.length) {
                dims = Arrays.copyOf(dims, rank * 2);
            }
            dims[rank++] = d;
        }
        return shapeOfRank(dims, rank);
    }

    /** @return the reused array of length {@code rank}, holding the first {@code rank} of {@code from} */
    private long[] shapeOfRank(long[] from, int rank) {
        if (rank >= shapesByRank.length) {
            shapesByRank = Arrays.copyOf(shapesByRank, rank + 1);
        }
        long[] shape = shapesByRank[rank];
        if (shape == null) {
            shape = new long[rank];
            shapesByRank[rank] = shape;
        }
        System.arraycopy(from, 0, shape, 0, rank);
        return shape;
    }

    /** Reads {@code data_offsets} into {@link #offsetBegin} and {@link #offsetEnd}. */
    private void readOffsets(String name) throws SafetensorsException {
        if (json.next() != JsonToken.BEGIN_ARRAY) {
            throw wrongType(ErrorCode.INVALID_OFFSETS, "data_offsets is not an array", name);
        }
        int n = 0;
        JsonToken t;
        while ((t = json.next()) != JsonToken.END_ARRAY) {
            if (n == 2) {
                throw invalid(ErrorCode.INVALID_OFFSETS, "data_offsets has more than two numbers", name,
                        json.tokenOffset());
            }
            long v = readCount(t, ErrorCode.INVALID_OFFSETS, "data_offsets", name);
            if (n++ == 0) {
                offsetBegin = v;
            } else {
                offsetEnd = v;
            }
        }
        if (n != 2) {
            throw invalid(ErrorCode.INVALID_OFFSETS, "data_offsets has " + n + " numbers, not two", name,
                    json.tokenOffset());
        }
    }

    /** Rule 18: a plain JSON integer literal between 0 and 2^63-1. */
    private long readCount(JsonToken t, ErrorCode wrongTypeCode, String field, String name)
            throws SafetensorsException {
        if (t != JsonToken.NUMBER) {
            throw wrongType(wrongTypeCode, field + " holds " + describe(t) + ", not an integer", name);
        }
        long at = json.tokenOffset();
        if (!json.numberIsPlainInteger()) {
            throw invalid(ErrorCode.INVALID_NUMBER, field + " holds " + json.numberText() + ", which is not "
                    + (json.numberIsNegative() ? "a non-negative integer" : "a plain integer"), name, at);
        }
        long v = json.integerValue();
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
     * Rules 12 and 13 for the string just read: its UTF-8 length after unescaping is at most {@code maxBytes}. A
     * string without escapes is as long as its raw bytes; one with escapes is decoded and counted.
     */
    private void checkLength(int maxBytes, String what, String tensor, long at) throws InvalidHeaderException {
        long utf8 = json.rawTextLength();
        if (utf8 > maxBytes && json.textEscaped()) {
            utf8 = json.text().getBytes(StandardCharsets.UTF_8).length;
        }
        if (utf8 > maxBytes) {
            throw invalid(ErrorCode.STRING_TOO_LONG, "the " + what + " is longer than " + maxBytes + " UTF-8 bytes",
                    tensor, at);
        }
    }

    /** Reads the offending value to its end (so nesting and syntax errors inside it win), then reports it. */
    private InvalidHeaderException wrongType(ErrorCode code, String detail, String tensor)
            throws InvalidHeaderException {
        long at = json.tokenOffset();
        json.skipValueRest();
        return invalid(code, detail, tensor, at);
    }

    private InvalidHeaderException invalid(ErrorCode code, String detail, String tensor, long at) {
        return new InvalidHeaderException(code, source, detail, tensor, at);
    }

    private static String describe(JsonToken t) {
        return switch (t) {
            case BEGIN_ARRAY -> "an array";
            case BEGIN_OBJECT -> "an object";
            case STRING -> "a string";
            case TRUE, FALSE -> "a boolean";
            case NULL -> "null";
            default -> String.valueOf(t);
        };
    }

    private static boolean isJsonSpace(byte c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }

    private static String clip(String s) {
        return s.length() <= 80 ? s : s.substring(0, 80) + "...";
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
