package dev.safetensors;

import java.nio.file.AccessDeniedException;

/**
 * The storage refused the credentials (HTTP 401 or 403), or a file's permissions forbid reading it. An
 * {@link AccessDeniedException} with code {@link ErrorCode#ACCESS_DENIED}. The message never carries a credential.
 */
public final class SourceAccessDeniedException extends AccessDeniedException implements ErrorCoded {
    private static final long serialVersionUID = 1L;

    /**
     * @param source the source's name, never a credential
     * @param reason what was refused and, where clear, what to do, or {@code null}
     */
    public SourceAccessDeniedException(String source, String reason) {
        super(source, null, reason);
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.ACCESS_DENIED;
    }
}
