package dev.safetensors.fuzz.reference;

import java.util.List;

/**
 * A JSON tree as the reference parser builds it. Objects keep their members in order, duplicates included, so the
 * duplicate rule can be judged on the tree; numbers keep their literal text, so the integer rule can be judged on it.
 */
public sealed interface JsonValue {
    /** An object: its members in document order, duplicates kept. */
    record JsonObject(List<Member> members) implements JsonValue {
    }

    /** One name and value of an object; the name is already unescaped. */
    record Member(String name, JsonValue value) {
    }

    /** An array. */
    record JsonArray(List<JsonValue> elements) implements JsonValue {
    }

    /** A string, unescaped. */
    record JsonString(String value) implements JsonValue {
    }

    /** A number as written, such as {@code -0} or {@code 1e3}. */
    record JsonNumber(String literal) implements JsonValue {
    }

    /** {@code true}, {@code false} or {@code null}. */
    record JsonLiteral(String word) implements JsonValue {
    }
}
