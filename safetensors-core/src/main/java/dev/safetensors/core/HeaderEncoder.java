package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import tools.jackson.core.JsonEncoding;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonWriteFeature;

import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Map;

/**
 * Encodes the canonical header of {@link SafetensorsWriter}: compact JSON in UTF-8, {@code __metadata__} first when
 * there is any (keys in insertion order), then the tensors in insertion order, which is also their data order, each
 * with {@code dtype}, {@code shape} and {@code data_offsets} in that order; then spaces until the payload starts
 * at a multiple of the layout's {@link Alignment#payloadMultiple()} (8 at least). Only what JSON requires is escaped: quote, backslash and control characters;
 * everything else is written as UTF-8.
 */
final class HeaderEncoder {
    /**
     * The one JSON writer set-up of what the library writes (headers and indexes): nothing escaped that JSON does
     * not require, so names round-trip byte for byte, as the official crate writes them.
     */
    static final JsonFactory JSON = JsonFactory.builder()
            .disable(JsonWriteFeature.ESCAPE_FORWARD_SLASHES)
            .disable(JsonWriteFeature.ESCAPE_NON_ASCII)
            .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
            .build();

    private HeaderEncoder() {
    }

    /**
     * @param target   a name for messages
     * @param entries  the tensors in payload order
     * @param multiple the payload starts at a multiple of this many bytes (a power of two, 8 or more)
     * @return the header bytes, padding included
     * @throws InvalidHeaderException {@link ErrorCode#INVALID_UTF8} for a string with an unpaired surrogate, which
     *                                UTF-8 cannot encode; {@link ErrorCode#INVALID_METADATA} for a tensor named
     *                                {@code __metadata__}
     */
    static byte[] encode(String target, List<WriterEntry> entries, Map<String, String> metadata, int multiple)
            throws InvalidHeaderException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + 96 * entries.size());
        try (JsonGenerator g = JSON.createGenerator(ObjectWriteContext.empty(), out, JsonEncoding.UTF8)) {
            g.writeStartObject();
            if (!metadata.isEmpty()) {
                g.writeName("__metadata__");
                g.writeStartObject();
                for (Map.Entry<String, String> m : metadata.entrySet()) {
                    g.writeStringProperty(encodable(target, m.getKey(), null), encodable(target, m.getValue(), null));
                }
                g.writeEndObject();
            }
            long offset = 0;
            for (WriterEntry e : entries) {
                if (e.name().equals("__metadata__")) {
                    // refused by name here: the validator would only see a metadata object holding a "dtype"
                    throw new InvalidHeaderException(ErrorCode.INVALID_METADATA, target, "no tensor can be named"
                            + " __metadata__: the name is reserved for the header's metadata", e.name(), -1);
                }
                g.writeName(encodable(target, e.name(), e.name()));
                g.writeStartObject();
                g.writeStringProperty("dtype", e.dtype().name());
                g.writeName("shape");
                g.writeStartArray();
                for (long d : e.shape()) {
                    g.writeNumber(d);
                }
                g.writeEndArray();
                g.writeName("data_offsets");
                g.writeStartArray();
                g.writeNumber(offset);
                offset += e.byteLength();
                g.writeNumber(offset);
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndObject();
        }
        // the 8-byte prefix is a multiple of every power of two up to 8; past that it counts
        for (int pad = (multiple - (8 + out.size()) % multiple) % multiple; pad > 0; pad--) {
            out.write(' ');
        }
        return out.toByteArray();
    }

    private static String encodable(String target, String s, String tensor) throws InvalidHeaderException {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new InvalidHeaderException(ErrorCode.INVALID_UTF8, target, "a string has an unpaired surrogate"
                        + " at char " + i + ", which UTF-8 cannot encode", tensor, -1);
            }
        }
        return s;
    }
}
