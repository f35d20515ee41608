package dev.safetensors.signing.internal;

import dev.safetensors.signing.SigningException;
import dev.safetensors.signing.SigningException.Reason;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonEncoding;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonWriteFeature;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Strict JSON for bundles and statements, on Jackson's streaming parser (no data binding): strict UTF-8, no
 * duplicate names, bounded nesting, nothing after the value. A document becomes plain values: {@link Map} (in
 * document order), {@link List}, {@link String}, {@link java.math.BigDecimal}, {@link Boolean}, and {@link #NULL}.
 */
public final class Json {
    /** JSON's {@code null}, distinct from an absent name. */
    public static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };

    private static final int MAX_DEPTH = 32;
    private static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH)
                    .maxDocumentLength(Integer.MAX_VALUE).maxStringLength(Integer.MAX_VALUE).build())
            .disable(JsonWriteFeature.ESCAPE_FORWARD_SLASHES)
            .disable(JsonWriteFeature.ESCAPE_NON_ASCII)
            .build();

    private Json() {
    }

    /** Writes one JSON document. */
    @FunctionalInterface
    public interface Writer {
        /**
         * @param g the generator to write the document to
         */
        void write(JsonGenerator g);
    }

    /**
     * @param writer writes exactly one value
     * @return the document, UTF-8
     */
    public static byte[] write(Writer writer) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
        try (JsonGenerator g = FACTORY.createGenerator(ObjectWriteContext.empty(), out, JsonEncoding.UTF8)) {
            writer.write(g);
        }
        return out.toByteArray();
    }

    /**
     * @param bytes  the document
     * @param what   its name in messages (a bundle, a statement)
     * @param reason the reason a malformed document is reported with
     * @return the value
     * @throws SigningException with {@code reason} if the bytes are not one strict JSON value
     */
    public static Object parse(byte[] bytes, String what, Reason reason) throws SigningException {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new SigningException(reason, what + " is not valid UTF-8", e);
        }
        try (JsonParser p = FACTORY.createParser(ObjectReadContext.empty(), text)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                throw new SigningException(reason, what + " is empty");
            }
            Object value = value(p, first);
            if (p.nextToken() != null) {
                throw new SigningException(reason, what + " has data after its JSON value");
            }
            return value;
        } catch (JacksonException e) {
            throw new SigningException(reason, what + " is not valid JSON: " + e.getOriginalMessage(), e);
        }
    }

    private static Object value(JsonParser p, JsonToken token) throws SigningException {
        switch (token) {
            case START_OBJECT: {
                Map<String, Object> map = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                    String name = p.currentName();
                    map.put(name, value(p, p.nextToken()));
                }
                return map;
            }
            case START_ARRAY: {
                List<Object> list = new ArrayList<>();
                for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
                    list.add(value(p, t));
                }
                return list;
            }
            case VALUE_STRING:
                return p.getString();
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                return p.getDecimalValue();
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            case VALUE_NULL:
                return NULL;
            default:
                throw new IllegalStateException("Jackson gave " + token + " where a value starts");
        }
    }

    /**
     * Writes a string array.
     *
     * @param g      the generator
     * @param name   the property name
     * @param values the strings
     */
    public static void stringArray(JsonGenerator g, String name, List<String> values) {
        g.writeArrayPropertyStart(name);
        for (String value : values) {
            g.writeString(value);
        }
        g.writeEndArray();
    }
}
