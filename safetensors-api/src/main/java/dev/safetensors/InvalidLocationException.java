package dev.safetensors;

import java.net.MalformedURLException;

/**
 * A location or endpoint that cannot be used as written: {@link ErrorCode#INVALID_SOURCE} (an {@code s3://} without
 * a key, a port out of range, spaces), {@link ErrorCode#INVALID_ENDPOINT} (a malformed {@code HF_ENDPOINT}) or
 * {@link ErrorCode#UNSUPPORTED_SCHEME}, or {@link ErrorCode#NOT_LISTABLE} (a folder of storage that cannot list).
 * A {@link MalformedURLException}, so it is an {@link java.io.IOException}.
 */
public final class InvalidLocationException extends MalformedURLException implements ErrorCoded {
    private static final long serialVersionUID = 1L;

    /** Which of the three location codes. */
    private final ErrorCode code;

    /**
     * @param code    {@link ErrorCode#INVALID_SOURCE}, {@link ErrorCode#INVALID_ENDPOINT} or
     *                {@link ErrorCode#UNSUPPORTED_SCHEME} or {@link ErrorCode#NOT_LISTABLE}
     * @param message the location, redacted, and what is wrong with it
     */
    public InvalidLocationException(ErrorCode code, String message) {
        super(message);
        if (code != ErrorCode.INVALID_SOURCE && code != ErrorCode.INVALID_ENDPOINT
                && code != ErrorCode.UNSUPPORTED_SCHEME && code != ErrorCode.NOT_LISTABLE) {
            throw new IllegalArgumentException("not a location code: " + code);
        }
        this.code = code;
    }

    @Override
    public ErrorCode code() {
        return code;
    }
}
