package dev.safetensors.core.internal.header;

import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The characters of a small JSON document exchanged between systems (an index, a {@code config.json}), decoded as
 * UTF-8 only (RFC 8259). Jackson is given the characters, never the bytes, because its encoding detection would take
 * a document starting {@code {\0\0\0} for UTF-32 and fail with an {@link Error}; a malformed sequence is a
 * {@link java.nio.charset.CharacterCodingException} here, never a replacement character.
 */
public final class StrictUtf8 {
    private StrictUtf8() {
    }

    /**
     * @param in UTF-8 bytes; closed when the reader is
     * @return a reader that fails on the first malformed or truncated sequence
     */
    public static Reader reader(InputStream in) {
        return new InputStreamReader(in, StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT));
    }
}
