package dev.safetensors.core.internal.header;

/** The tokens of {@link JsonTokenizer}. */
public enum JsonToken {
    BEGIN_OBJECT, END_OBJECT, BEGIN_ARRAY, END_ARRAY, NAME, STRING, NUMBER, TRUE, FALSE, NULL,
    /** The root value is complete; what follows it has not been read. */
    END
}
