package dev.safetensors.s3;

import dev.safetensors.spi.RangeAnswer;

import java.io.InputStream;
import java.util.function.UnaryOperator;

/** An answer from S3, with the error code and request id an error answer carries for the message. */
final class S3Answer extends RangeAnswer {
    private final String errorCode;
    private final String requestId;

    S3Answer(int status, UnaryOperator<String> headers, InputStream body, Runnable abort, String errorCode,
             String requestId) {
        super(status, headers, body, abort);
        this.errorCode = errorCode;
        this.requestId = requestId;
    }

    /** @return the S3 error code, such as {@code NoSuchKey}, or an empty string */
    String errorCode() {
        return errorCode;
    }

    /** @return the request id, or {@code null} */
    String requestId() {
        return requestId;
    }
}
