package dev.safetensors.fuzz.reference;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Rule 7 by way of the JDK's own decoder, which refuses overlong forms, encoded surrogates, code points above
 * U+10FFFF and truncated sequences when told to report instead of replace: an implementation independent of the
 * validator's hand-written one.
 */
final class StrictUtf8 {
    private StrictUtf8() {
    }

    static String decode(byte[] b, int offset, int length, String rule) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(b, offset, length))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new Rejection(rule, "not strict UTF-8: " + e);
        }
    }
}
