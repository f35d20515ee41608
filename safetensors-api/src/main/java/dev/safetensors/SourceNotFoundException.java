package dev.safetensors;

import java.nio.file.NoSuchFileException;

/**
 * The object, file or repository does not exist. A {@link NoSuchFileException}, so code written for local files
 * handles remote ones too, with code {@link ErrorCode#NOT_FOUND}.
 */
public final class SourceNotFoundException extends NoSuchFileException implements ErrorCoded {
    private static final long serialVersionUID = 1L;

    /**
     * @param source the source's name, never a credential
     * @param reason what was looked for and not found, or {@code null}
     */
    public SourceNotFoundException(String source, String reason) {
        super(source, null, reason);
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.NOT_FOUND;
    }
}
