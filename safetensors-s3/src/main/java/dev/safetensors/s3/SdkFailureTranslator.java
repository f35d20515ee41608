package dev.safetensors.s3;

import dev.safetensors.SourceChangedException;
import dev.safetensors.spi.SourceNames;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.exception.SdkServiceException;

import java.io.EOFException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;

/**
 * Turns the SDK's unchecked exceptions into the checked I/O errors callers of a source expect. The messages name
 * the object and the S3 error code; they never carry credentials or signatures (the SDK exception stays attached
 * as the cause, and its message holds only status, code and request ids).
 */
final class SdkFailureTranslator {
    private final String name;

    /** @param name the object's {@code s3://bucket/key} name */
    SdkFailureTranslator(String name) {
        this.name = name;
    }

    /**
     * @param request what was asked, such as {@code GET bytes=0-131071}, for the message
     * @param failure what the SDK threw
     * @return the I/O error to throw
     */
    IOException translate(String request, SdkException failure) {
        if (!(failure instanceof SdkServiceException)) {
            return new IOException(name + ": " + request + " failed: " + SourceNames.clip(
                    String.valueOf(failure.getMessage())), failure);
        }
        SdkServiceException service = (SdkServiceException) failure;
        int status = service.statusCode();
        String code = errorCode(service);
        IOException translated;
        if (status == 404 || code.equals("NoSuchKey") || code.equals("NoSuchBucket") || code.equals("NoSuchVersion")) {
            translated = new NoSuchFileException(name, null, "no such S3 object (" + describe(status, code) + ")");
        } else if (status == 403) {
            translated = new AccessDeniedException(name, null, "S3 denied access (" + describe(status, code)
                    + "); check the credentials, the bucket policy and the region");
        } else if (status == 412) {
            return new SourceChangedException(name, "the object changed since it was first read: " + request
                    + " no longer matches the pinned ETag (" + describe(status, code) + ")", failure);
        } else if (status == 416) {
            translated = new EOFException(name + ": " + request + " starts at or past the end of the object ("
                    + describe(status, code) + ")");
        } else {
            return new IOException(name + ": " + request + " failed (" + describe(status, code) + ", request id "
                    + service.requestId() + ")", failure);
        }
        translated.initCause(failure);
        return translated;
    }

    private static String errorCode(SdkServiceException failure) {
        if (failure instanceof AwsServiceException) {
            AwsErrorDetails details = ((AwsServiceException) failure).awsErrorDetails();
            if (details != null && details.errorCode() != null) {
                return details.errorCode();
            }
        }
        return "";
    }

    private static String describe(int status, String code) {
        return "status " + status + (code.isEmpty() ? "" : " " + SourceNames.clip(code));
    }
}
