package dev.safetensors;

/**
 * The file breaks a header or layout rule: it is not a well-formed safetensors file under the policy in
 * force. The {@link #code()} says which rule.
 */
public final class InvalidHeaderException extends SafetensorsException {
    private static final long serialVersionUID = 1L;

    /**
     * @param code   the rule that was broken
     * @param source the source's name
     * @param detail what is wrong
     */
    public InvalidHeaderException(ErrorCode code, String source, String detail) {
        super(code, source, detail, null, -1);
    }

    /**
     * @param code         the rule that was broken
     * @param source       the source's name
     * @param detail       what is wrong
     * @param tensor       the tensor it applies to, or {@code null}
     * @param headerOffset the byte offset inside the header, or {@code -1}
     */
    public InvalidHeaderException(ErrorCode code, String source, String detail, String tensor, long headerOffset) {
        super(code, source, detail, tensor, headerOffset);
    }
}
