package dev.safetensors.signing.internal;

import dev.safetensors.signing.SigningException;
import dev.safetensors.signing.SigningException.Reason;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Typed, checked access to a parsed JSON object: a wrong type or a missing required name is a
 * {@link SigningException} with the reason of the document it came from, naming the field's path.
 */
public final class JsonObject {
    private final Map<String, Object> fields;
    private final String path;
    private final Reason reason;

    private JsonObject(Map<String, Object> fields, String path, Reason reason) {
        this.fields = fields;
        this.path = path;
        this.reason = reason;
    }

    /**
     * @param value  a parsed value ({@link Json#parse})
     * @param path   its name in messages
     * @param reason the reason failures are reported with
     * @return the object
     * @throws SigningException if the value is not an object
     */
    @SuppressWarnings("unchecked")
    public static JsonObject of(Object value, String path, Reason reason) throws SigningException {
        if (!(value instanceof Map)) {
            throw new SigningException(reason, path + " is not a JSON object");
        }
        return new JsonObject((Map<String, Object>) value, path, reason);
    }

    /**
     * @param name a property name
     * @return whether the property is present with a value other than {@code null}
     */
    public boolean has(String name) {
        Object value = fields.get(name);
        return value != null && value != Json.NULL;
    }

    /**
     * @param name a property name
     * @return the nested object
     * @throws SigningException if it is absent or not an object
     */
    public JsonObject object(String name) throws SigningException {
        return of(required(name), path + "." + name, reason);
    }

    /**
     * @param name a property name
     * @return the string
     * @throws SigningException if it is absent or not a string
     */
    public String string(String name) throws SigningException {
        Object value = required(name);
        if (!(value instanceof String s)) {
            throw invalid(name, "is not a string");
        }
        return s;
    }

    /**
     * @param name a property name
     * @return the string, or empty if the property is absent or {@code null}
     * @throws SigningException if it is present and not a string
     */
    public Optional<String> optionalString(String name) throws SigningException {
        return has(name) ? Optional.of(string(name)) : Optional.empty();
    }

    /**
     * Bytes as protobuf's JSON mapping writes them: Base64, either alphabet, with or without padding.
     *
     * @param name a property name
     * @return the decoded bytes
     * @throws SigningException if it is absent, not a string or not Base64
     */
    public byte[] base64(String name) throws SigningException {
        return base64(required(name), name);
    }

    /**
     * @param value an element of one of this object's arrays
     * @param name  the array's name, for messages
     * @return the decoded bytes
     * @throws SigningException if it is not a Base64 string
     */
    public byte[] base64(Object value, String name) throws SigningException {
        if (!(value instanceof String text)) {
            throw invalid(name, "is not a string");
        }
        try {
            return text.indexOf('-') >= 0 || text.indexOf('_') >= 0
                    ? java.util.Base64.getUrlDecoder().decode(text) : java.util.Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw invalid(name, "is not Base64");
        }
    }

    /**
     * @param name a property name
     * @return the boolean
     * @throws SigningException if it is absent or not a boolean
     */
    public boolean bool(String name) throws SigningException {
        Object value = required(name);
        if (!(value instanceof Boolean b)) {
            throw invalid(name, "is not a boolean");
        }
        return b;
    }

    /**
     * A positive whole number, written as an integer or, as the reference implementation's protobuf JSON writes
     * numbers, with a fraction of zero ({@code 8.0}).
     *
     * @param name a property name
     * @return the number
     * @throws SigningException if it is absent, not a number, not whole, not positive or above {@link Long#MAX_VALUE}
     */
    public long positiveLong(String name) throws SigningException {
        Object value = required(name);
        if (!(value instanceof BigDecimal d)) {
            throw invalid(name, "is not a number");
        }
        try {
            long n = d.longValueExact();
            if (n <= 0) {
                throw invalid(name, "is not positive");
            }
            return n;
        } catch (ArithmeticException e) {
            throw invalid(name, "is not a whole number that fits 63 bits");
        }
    }

    /**
     * A non-negative whole number, as protobuf's JSON mapping writes a 64-bit integer: a string of digits, or a
     * number.
     *
     * @param name a property name
     * @return the number
     * @throws SigningException if it is absent, negative, not whole or above {@link Long#MAX_VALUE}
     */
    public long wholeNumber(String name) throws SigningException {
        Object value = required(name);
        try {
            BigDecimal d = value instanceof String s && s.matches("[0-9]{1,19}") ? new BigDecimal(s)
                    : value instanceof BigDecimal b ? b : null;
            if (d == null || d.signum() < 0) {
                throw invalid(name, "is not a non-negative whole number");
            }
            return d.longValueExact();
        } catch (ArithmeticException e) {
            throw invalid(name, "is not a whole number that fits 63 bits");
        }
    }

    /**
     * @param name a property name
     * @return the array's elements
     * @throws SigningException if it is absent or not an array
     */
    public List<Object> array(String name) throws SigningException {
        Object value = required(name);
        if (!(value instanceof List<?> list)) {
            throw invalid(name, "is not an array");
        }
        return new ArrayList<>(list);
    }

    /**
     * @param name a property name
     * @return the array's objects
     * @throws SigningException if it is absent, not an array, or holds a non-object
     */
    public List<JsonObject> objects(String name) throws SigningException {
        List<Object> values = array(name);
        List<JsonObject> out = new ArrayList<>(values.size());
        for (int i = 0; i < values.size(); i++) {
            out.add(of(values.get(i), path + "." + name + "[" + i + "]", reason));
        }
        return out;
    }

    /**
     * @param name a property name
     * @return the array's strings, empty if the property is absent or {@code null}
     * @throws SigningException if it is not an array of strings
     */
    public List<String> optionalStrings(String name) throws SigningException {
        if (!has(name)) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (Object value : array(name)) {
            if (!(value instanceof String s)) {
                throw invalid(name, "holds a value that is not a string");
            }
            out.add(s);
        }
        return out;
    }

    /**
     * @param name   the property that is wrong
     * @param detail what is wrong with it
     * @return the failure to throw
     */
    public SigningException invalid(String name, String detail) {
        return new SigningException(reason, path + "." + name + " " + detail);
    }

    private Object required(String name) throws SigningException {
        if (!has(name)) {
            throw invalid(name, "is missing");
        }
        return fields.get(name);
    }
}
