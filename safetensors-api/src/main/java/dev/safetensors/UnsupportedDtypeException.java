package dev.safetensors;

/**
 * The file uses a dtype outside the accepted set of the policy in force ({@link ErrorCode#UNSUPPORTED_DTYPE}),
 * or an operation needs a dtype it cannot handle ({@link ErrorCode#NOT_FLOAT_READABLE}). A file refused with
 * {@code UNSUPPORTED_DTYPE} broke no other rule: it is well formed, but not readable under this policy.
 */
public final class UnsupportedDtypeException extends SafetensorsException {
    private static final long serialVersionUID = 1L;

    /**
     * @param code   {@link ErrorCode#UNSUPPORTED_DTYPE} or {@link ErrorCode#NOT_FLOAT_READABLE}
     * @param source the source's name
     * @param detail what is wrong, including the accepted names
     * @param tensor the tensor it applies to, or {@code null}
     * @param headerOffset the byte offset inside the header, or {@code -1}
     */
    public UnsupportedDtypeException(ErrorCode code, String source, String detail, String tensor, long headerOffset) {
        super(code, source, detail, tensor, headerOffset);
    }
}
