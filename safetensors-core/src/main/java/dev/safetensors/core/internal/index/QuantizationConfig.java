package dev.safetensors.core.internal.index;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.spi.SourceNames;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.exc.JacksonIOException;
import tools.jackson.core.json.JsonFactory;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import dev.safetensors.core.internal.header.StrictUtf8;

/**
 * The {@code quantization_config} of a model's {@code config.json} (or of its {@code text_config}), as far as
 * parameter counting needs it: the method, the bit width, the modules left unquantized, and compressed-tensors'
 * format and config groups. Immutable.
 *
 * @param method               {@code quant_method} in lower case ({@code gptq}, {@code awq}, {@code bitsandbytes},
 *                             {@code mxfp4}, {@code compressed-tensors}, ...)
 * @param bits                 {@code bits}, or 0 when absent
 * @param loadIn4bit           bitsandbytes' {@code load_in_4bit}
 * @param modulesToNotConvert  {@code modules_to_not_convert}
 * @param ignore               compressed-tensors' {@code ignore}
 * @param format               compressed-tensors' {@code format}, lower case, or {@code ""}
 * @param groups               compressed-tensors' {@code config_groups}, in order
 */
public record QuantizationConfig(String method, int bits, boolean loadIn4bit, List<String> modulesToNotConvert,
                          List<String> ignore, String format, List<Group> groups) {
    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build())
            .build();

    /**
     * A compressed-tensors config group.
     *
     * @param targets the modules it applies to (names, or {@code re:} patterns)
     * @param format  its format, lower case, or {@code ""}
     * @param numBits its weights' {@code num_bits}, or 0
     */
    record Group(List<String> targets, String format, int numBits) {
    }

    /**
     * @param source the config's name, for messages
     * @param json   the bytes of {@code config.json}
     * @return its quantization config, if it declares one
     * @param maxBytes the largest config accepted ({@link dev.safetensors.CheckpointLimits#maxConfigBytes()})
     * @throws InvalidHeaderException with {@link ErrorCode#INVALID_JSON} if it is not a UTF-8 JSON object or too
     *                                large
     */
    public static Optional<QuantizationConfig> parse(String source, byte[] json, int maxBytes)
            throws InvalidHeaderException {
        if (json.length > maxBytes) {
            throw new InvalidHeaderException(ErrorCode.INVALID_JSON, source, "config.json has more than "
                    + maxBytes + " bytes");
        }
        Object root;
        try (JsonParser p = JSON.createParser(ObjectReadContext.empty(),
                StrictUtf8.reader(new ByteArrayInputStream(json)))) {
            JsonToken first = p.nextToken();
            if (first == null) {
                throw new InvalidHeaderException(ErrorCode.INVALID_JSON, source, "config.json is empty");
            }
            root = value(p, first);
            if (p.nextToken() != null) {
                throw new InvalidHeaderException(ErrorCode.INVALID_JSON, source, "data after the config object");
            }
        } catch (JacksonIOException e) {
            // reading an array fails only on a malformed sequence: the config is not UTF-8
            throw new InvalidHeaderException(ErrorCode.INVALID_JSON, source, "config.json is not valid UTF-8");
        } catch (JacksonException e) {
            throw new InvalidHeaderException(ErrorCode.INVALID_JSON, source, "config.json is not valid JSON: "
                    + SourceNames.clip(e.getOriginalMessage()));
        }
        if (!(root instanceof Map<?, ?> config)) {
            throw new InvalidHeaderException(ErrorCode.INVALID_JSON, source, "config.json is not a JSON object");
        }
        Object q = config.get("quantization_config");
        if (!(q instanceof Map) && config.get("text_config") instanceof Map<?, ?> text) {
            q = text.get("quantization_config");
        }
        return q instanceof Map<?, ?> m ? Optional.of(of(m)) : Optional.empty();
    }

    private static QuantizationConfig of(Map<?, ?> q) {
        List<Group> groups = new ArrayList<>();
        if (q.get("config_groups") instanceof Map<?, ?> g) {
            for (Object v : g.values()) {
                if (v instanceof Map<?, ?> group) {
                    int numBits = group.get("weights") instanceof Map<?, ?> w ? integer(w.get("num_bits")) : 0;
                    groups.add(new Group(strings(group.get("targets")), text(group.get("format")), numBits));
                }
            }
        }
        return new QuantizationConfig(text(q.get("quant_method")), integer(q.get("bits")),
                Boolean.TRUE.equals(q.get("load_in_4bit")), strings(q.get("modules_to_not_convert")),
                strings(q.get("ignore")), text(q.get("format")), List.copyOf(groups));
    }

    /** @return a short description for output, such as {@code gptq, 4 bits} */
    public String describe() {
        String m = method.isEmpty() ? "unknown method" : method;
        if (bits > 0) {
            return m + ", " + bits + " bits";
        }
        return loadIn4bit ? m + ", 4-bit" : format.isEmpty() ? m : m + ", " + format;
    }

    private static String text(Object o) {
        return o instanceof String s ? s.toLowerCase(Locale.ROOT) : "";
    }

    private static int integer(Object o) {
        if (o instanceof Long n && n > 0 && n <= 64) {
            return n.intValue();
        }
        return 0;
    }

    private static List<String> strings(Object o) {
        List<String> out = new ArrayList<>();
        if (o instanceof List<?> list) {
            for (Object e : list) {
                if (e instanceof String s) {
                    out.add(s);
                }
            }
        }
        return List.copyOf(out);
    }

    /** Reads one value: objects to maps, arrays to lists, integers to {@link Long}, other numbers to text. */
    private static Object value(JsonParser p, JsonToken t) {
        switch (t) {
            case START_OBJECT: {
                Map<String, Object> map = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                    String key = p.currentName();
                    map.put(key, value(p, p.nextToken()));
                }
                return map;
            }
            case START_ARRAY: {
                List<Object> list = new ArrayList<>();
                for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
                    list.add(value(p, e));
                }
                return list;
            }
            case VALUE_STRING:
                return p.getString();
            case VALUE_NUMBER_INT:
                return p.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? p.getString() : p.getLongValue();
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            case VALUE_NULL:
                return null;
            default:
                return p.getString();
        }
    }
}
