package dev.safetensors;

/**
 * The storage failed or misbehaved in a way no JDK exception type names: a deadline passed
 * ({@link ErrorCode#TIMEOUT}), the server kept failing ({@link ErrorCode#SERVER_ERROR}), the network failed
 * ({@link ErrorCode#NETWORK}), a body ended early ({@link ErrorCode#TRUNCATED}), a location or endpoint is unusable,
 * and the subclasses {@link RangeNotHonouredException} and {@link SourceChangedException}. Missing objects and refused
 * credentials keep the JDK's types: {@link SourceNotFoundException}, {@link SourceAccessDeniedException}.
 */
public class StorageException extends SafetensorsException {
    private static final long serialVersionUID = 1L;

    /**
     * @param code   what happened
     * @param source the source's name, never a credential
     * @param detail what happened, in words
     */
    public StorageException(ErrorCode code, String source, String detail) {
        super(code, source, detail, null, -1);
    }

    /**
     * @param code   what happened
     * @param source the source's name, never a credential
     * @param detail what happened, in words
     * @param cause  the client's failure behind it, or {@code null}
     */
    public StorageException(ErrorCode code, String source, String detail, Throwable cause) {
        super(code, source, detail, null, -1, cause);
    }
}
