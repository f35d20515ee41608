package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import org.apache.spark.unsafe.types.UTF8String;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A row's string read strictly: Spark keeps strings as UTF-8 bytes that need not be valid (a binary cast to string
 * keeps its bytes, an encoded lone surrogate included), and {@link UTF8String#toString()} would replace what is
 * invalid, so a name or key written from it would silently differ from the row's. A string Spark made from a Java
 * {@code String} already has any lone surrogate replaced by {@code ?} before a data source sees it.
 */
final class RowText {
    private RowText() {
    }

    /**
     * @param what   what the string is, for the message ("the tensor name", "the key")
     * @param source names the write, for the message
     * @return the string, decoded strictly
     * @throws InvalidHeaderException {@link ErrorCode#INVALID_UTF8} when its bytes are not valid UTF-8
     */
    static String of(UTF8String s, String what, String source) throws InvalidHeaderException {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(s.getBytes()))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new InvalidHeaderException(ErrorCode.INVALID_UTF8, source, what + " is not valid UTF-8 (an"
                    + " encoded lone surrogate, or bytes cast to a string); a safetensors header holds only UTF-8");
        }
    }
}
