package dev.safetensors.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds a whole safetensors file from a fuzzer's choices: entries with names, dtypes, shapes and offsets, metadata,
 * whitespace, padding, the length prefix and the payload. Every choice defaults to the well-formed option (an
 * exhausted provider answers zero), so most inputs are valid files or a step or two away from one: the fuzzer then
 * spends its time on the entry, arithmetic and layout rules instead of on JSON syntax, which the raw target covers.
 */
final class HeaderComposer {
    /** Largest payload actually written; longer contiguous layouts keep their offsets but get a short payload. */
    private static final long MAX_PAYLOAD = 1 << 14;
    /** Dimensions around the signed 64-bit overflow edges of rule 20, alone and in products. */
    private static final long[] BIG_DIMS = {1L << 31, 1L << 32, 3_037_000_499L, 3_037_000_500L, 1L << 59, 1L << 61,
        1L << 62, (1L << 62) + 1, Long.MAX_VALUE, Long.MAX_VALUE / 4 + 1};
    private static final String[] WHITESPACE = {" ", "\t", "\n", "\r", "\r\n", "  "};
    private static final String[] PADDING = {" ", "\t", "\n", "\r", "\0", "x", "\u00a0", "}", "\ufeff"};
    private static final String[] NON_OBJECTS = {"null", "[]", "\"x\"", "0", "true", "[{}]"};

    private final FuzzedDataProvider d;
    private final StringBuilder json = new StringBuilder();
    private long nextOffset;

    private HeaderComposer(FuzzedDataProvider d) {
        this.d = d;
    }

    static byte[] compose(FuzzedDataProvider d) {
        return new HeaderComposer(d).file();
    }

    private byte[] file() {
        if (d.consumeInt(0, 31) == 1) {
            json.append(space());
        }
        json.append('{');
        int entries = d.consumeInt(0, 5);
        int metadataAt = d.consumeInt(-1, entries);
        boolean first = true;
        for (int i = 0; i <= entries; i++) {
            if (i == metadataAt) {
                separator(first);
                first = false;
                metadata();
            }
            if (i < entries) {
                separator(first);
                first = false;
                tensor();
            }
        }
        json.append(space()).append('}');
        padding();
        byte[] header = damage(json.toString().getBytes(StandardCharsets.UTF_8));
        long payload = payloadLength();
        return assemble(declaredLength(header.length), header, payload);
    }

    private void separator(boolean first) {
        int kind = d.consumeInt(0, 63);
        if (!first && kind != 1) {
            json.append(',');
        }
        if (first && kind == 2) {
            json.append(',');
        }
        json.append(space());
    }

    private String space() {
        return d.consumeInt(0, 7) == 1 ? WHITESPACE[d.consumeInt(0, WHITESPACE.length - 1)] : "";
    }

    private void tensor() {
        json.append(JsonSpelling.string(d, NameChoice.pick(d))).append(space()).append(':').append(space());
        int form = d.consumeInt(0, 31);
        if (form == 1) {
            json.append(d.pickValue(NON_OBJECTS));
            return;
        }
        DtypeChoice.Choice dtype = DtypeChoice.pick(d);
        long[] shape = shape();
        long length = byteLength(shape, dtype.bits());
        long begin = nextOffset;
        long end = begin + length;
        switch (d.consumeInt(0, 23)) {
            case 1 -> begin++;
            case 2 -> end++;
            case 3 -> end--;
            case 4 -> begin = end + 1;
            case 5 -> {
                begin = 0;
                end = length;
            }
            case 6 -> end = Long.MAX_VALUE;
            case 7 -> {
                begin = d.consumeLong(0, 64);
                end = d.consumeLong(0, 64);
            }
            case 8 -> begin = end = nextOffset;
            default -> {
            }
        }
        if (end >= nextOffset) {
            nextOffset = end;
        }
        List<String> fields = new ArrayList<>(List.of(
                field("dtype", dtype.json()),
                field("shape", integers(shape)),
                field("data_offsets", integers(offsets(begin, end)))));
        switch (d.consumeInt(0, 31)) {
            case 1 -> fields.remove(d.consumeInt(0, 2));
            case 2 -> fields.add(fields.get(d.consumeInt(0, 2)));
            case 3 -> fields.add(field(NameChoice.pick(d), "1"));
            case 4 -> fields.add(field("extra", nested()));
            default -> {
            }
        }
        for (int i = fields.size() - 1; i > 0; i--) {
            int j = d.consumeInt(0, i);
            String t = fields.get(i);
            fields.set(i, fields.get(j));
            fields.set(j, t);
        }
        json.append('{').append(String.join("," + space(), fields)).append('}');
    }

    private String field(String name, String valueJson) {
        return JsonSpelling.string(d, name) + space() + ":" + space() + valueJson;
    }

    private long[] shape() {
        int rank = switch (d.consumeInt(0, 31)) {
            case 1 -> 4;
            case 2 -> 16;
            case 3 -> 17;
            default -> d.consumeInt(0, 3);
        };
        long[] dims = new long[rank];
        for (int i = 0; i < rank; i++) {
            dims[i] = d.consumeInt(0, 15) == 1 ? d.pickValue(BIG_DIMS) : d.consumeInt(0, 5);
        }
        return dims;
    }

    /** The byte length rule 20 asks for, or any small length when the arithmetic overflows or is not whole. */
    private long byteLength(long[] shape, int bits) {
        long count = 1;
        for (long dim : shape) {
            if (Math.multiplyHigh(count, dim) != 0 || count * dim < 0) {
                return d.consumeLong(0, 16);
            }
            count *= dim;
        }
        if (Math.multiplyHigh(count, bits) != 0 || count * bits < 0 || count * bits % 8 != 0) {
            return d.consumeLong(0, 16);
        }
        return count * bits / 8;
    }

    private long[] offsets(long begin, long end) {
        return switch (d.consumeInt(0, 31)) {
            case 1 -> new long[] {begin};
            case 2 -> new long[] {begin, end, end};
            default -> new long[] {begin, end};
        };
    }

    private String integers(long[] values) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < values.length; i++) {
            sb.append(i == 0 ? "" : ",").append(space()).append(JsonSpelling.integer(d, values[i]));
        }
        return sb.append(']').toString();
    }

    private void metadata() {
        json.append(JsonSpelling.string(d, "__metadata__")).append(':');
        if (d.consumeInt(0, 15) == 1) {
            json.append(d.pickValue(NON_OBJECTS));
            return;
        }
        json.append('{');
        int keys = d.consumeInt(0, 4);
        for (int i = 0; i < keys; i++) {
            json.append(i == 0 ? "" : ",").append(JsonSpelling.string(d, NameChoice.pick(d))).append(':');
            json.append(switch (d.consumeInt(0, 15)) {
                case 1 -> nested();
                case 2 -> JsonSpelling.string(d, "v".repeat(d.consumeInt(19, 21)));
                case 3 -> JsonSpelling.string(d, "é".repeat(32_768) + (d.consumeBoolean() ? "" : "v"));
                case 4 -> JsonSpelling.integer(d, d.consumeLong(0, 9));
                default -> JsonSpelling.string(d, d.consumeString(d.consumeInt(0, 24)));
            });
        }
        json.append('}');
    }

    /** Arrays and objects nested a few levels either side of the depth bounds 4 and 8. */
    private String nested() {
        int depth = d.consumeInt(1, 10);
        boolean objects = d.consumeBoolean();
        String open = objects ? "{\"k\":" : "[";
        String close = objects ? "}" : "]";
        return open.repeat(depth) + "1" + close.repeat(depth);
    }

    private void padding() {
        int n = d.consumeInt(0, 8);
        String pad = d.consumeInt(0, 7) == 1 ? PADDING[d.consumeInt(0, PADDING.length - 1)] : " ";
        json.append(pad.repeat(n));
    }

    /** Now and then one byte inserted or replaced anywhere, possibly making the header invalid UTF-8. */
    private byte[] damage(byte[] header) {
        int kind = d.consumeInt(0, 15);
        if ((kind != 1 && kind != 2) || header.length == 0) {
            return header;
        }
        int at = d.consumeInt(0, header.length - 1);
        byte b = d.consumeByte();
        if (kind == 2) {
            header[at] = b;
            return header;
        }
        byte[] longer = new byte[header.length + 1];
        System.arraycopy(header, 0, longer, 0, at);
        longer[at] = b;
        System.arraycopy(header, at, longer, at + 1, header.length - at);
        return longer;
    }

    private long payloadLength() {
        long n = nextOffset <= MAX_PAYLOAD ? nextOffset : d.consumeLong(0, 64);
        return switch (d.consumeInt(0, 15)) {
            case 1 -> n + 1;
            case 2 -> Math.max(0, n - 1);
            default -> n;
        };
    }

    private long declaredLength(int actual) {
        return switch (d.consumeInt(0, 31)) {
            case 1 -> actual + 1L;
            case 2 -> actual - 1L;
            case 3 -> d.consumeLong();
            case 4 -> Long.MIN_VALUE;
            case 5 -> 0;
            default -> actual;
        };
    }

    private static byte[] assemble(long declared, byte[] header, long payloadLength) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(declared).array());
        out.writeBytes(header);
        for (long i = 0; i < payloadLength; i++) {
            out.write((int) (i * 37 + 11));
        }
        return out.toByteArray();
    }
}
