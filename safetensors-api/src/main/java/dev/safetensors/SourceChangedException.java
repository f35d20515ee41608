package dev.safetensors;

/**
 * The object behind a source changed between two reads (another ETag, generation or version), so bytes read
 * earlier and bytes read now may belong to different files. Code {@link ErrorCode#SOURCE_CHANGED}.
 */
public final class SourceChangedException extends StorageException {
    private static final long serialVersionUID = 1L;

    /**
     * @param source the source's name
     * @param detail which identity was pinned and what was seen instead
     */
    public SourceChangedException(String source, String detail) {
        super(ErrorCode.SOURCE_CHANGED, source, detail);
    }

    /**
     * @param source the source's name
     * @param detail which identity was pinned and what was seen instead
     * @param cause  the storage client's failure that revealed the change
     */
    public SourceChangedException(String source, String detail, Throwable cause) {
        super(ErrorCode.SOURCE_CHANGED, source, detail, cause);
    }
}
