package dev.safetensors;

/**
 * The storage answered a range request with something other than exactly the bytes asked for: a full body
 * instead of a range, a shifted or short range, a total size that differs from the one seen before, or more
 * bytes than asked. The connection is aborted, never drained. Code {@link ErrorCode#RANGE_NOT_HONOURED}.
 */
public final class RangeNotHonouredException extends StorageException {
    private static final long serialVersionUID = 1L;

    /**
     * @param source the source's name
     * @param detail what was asked and what came back
     */
    public RangeNotHonouredException(String source, String detail) {
        super(ErrorCode.RANGE_NOT_HONOURED, source, detail);
    }
}
