package dev.safetensors.s3;

import dev.safetensors.ErrorCode;
import dev.safetensors.SourceAccessDeniedException;
import dev.safetensors.StorageException;
import dev.safetensors.spi.SourceNames;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.http.SdkHttpResponse;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.URI;

/**
 * Turns what the SDK throws into what {@link dev.safetensors.spi.AbstractRangedSource} understands: an error answer
 * ({@link SdkServiceException}) becomes an {@link S3Answer} with its status, headers and S3 error code, so the shared
 * layer maps statuses for every backend alike; a failure before any answer ({@link SdkClientException}) becomes a
 * retryable {@link StorageException} ({@link ErrorCode#NETWORK}, {@link ErrorCode#TIMEOUT}) when the network is to
 * blame, and a final one otherwise (no region, no credentials). Messages name the object and the host the request was
 * sent to ({@link AskedHost}: the SDK's own messages do not, when it chose the endpoint), never credentials or
 * signatures.
 */
final class SdkFailureTranslator {
    private SdkFailureTranslator() {
    }

    /** @return the error answer as an answer without a body */
    static S3Answer answer(SdkServiceException failure) {
        SdkHttpResponse http = failure instanceof AwsServiceException aws && aws.awsErrorDetails() != null
                ? aws.awsErrorDetails().sdkHttpResponse() : null;
        String code = errorCode(failure);
        return new S3Answer(failure.statusCode(), name -> http == null ? null
                : http.firstMatchingHeader(name).orElse(null), InputStream.nullInputStream(), () -> { }, code,
                failure.requestId());
    }

    /**
     * @param name    the object or prefix, redacted
     * @param request what was asked, in words ({@code GET bytes=0-131071}, {@code ListObjectsV2})
     * @param failure what the SDK threw
     * @param asked   the host the request's last attempt was sent to, or {@code null} if none was sent
     * @return the failure to throw for a request that got no answer, naming the host it was sent to
     */
    static IOException noAnswer(String name, String request, SdkClientException failure, URI asked) {
        String said = said(failure, asked);
        if (failure instanceof AbortedException || Thread.currentThread().isInterrupted()) {
            InterruptedIOException interrupted = new InterruptedIOException(name + ": " + request + " interrupted");
            interrupted.initCause(failure);
            return interrupted;
        }
        if (failure instanceof ApiCallTimeoutException || failure instanceof ApiCallAttemptTimeoutException
                || causedBy(failure, java.net.SocketTimeoutException.class)) {
            return new StorageException(ErrorCode.TIMEOUT, name, request + " timed out: " + said, failure);
        }
        if (causedBy(failure, IOException.class) || causedBy(failure, UncheckedIOException.class)) {
            return new StorageException(ErrorCode.NETWORK, name, request + " failed: " + said, failure);
        }
        if (said.toLowerCase(java.util.Locale.ROOT).contains("credentials")) {
            SourceAccessDeniedException denied = new SourceAccessDeniedException(name, request
                    + ": no usable AWS credentials: " + said);
            denied.initCause(failure);
            return denied;
        }
        return new StorageException(ErrorCode.IO_ERROR, name, request + " could not be sent: " + said, failure);
    }

    /**
     * Why no answer came, naming the host asked: the JDK's own reason for an unknown host or a refused connection
     * ({@link SourceNames#noAnswer}), which the SDK hides behind a long message of its own; otherwise the SDK's
     * message, clipped, after the host.
     */
    private static String said(SdkClientException failure, URI asked) {
        if (asked == null) {
            return SourceNames.clip(String.valueOf(failure.getMessage()));
        }
        for (Throwable t = failure.getCause(); t != null; t = t.getCause()) {
            if (t instanceof java.net.UnknownHostException || t instanceof java.net.ConnectException) {
                return SourceNames.noAnswer(asked, t);
            }
        }
        return hostAndPort(asked) + ": " + SourceNames.clip(String.valueOf(failure.getMessage()));
    }

    /**
     * @param failure an error answer
     * @param asked   the host the request's last attempt was sent to, or {@code null}
     * @return what the store said beyond the status, for a message: {@code " (NoSuchBucket from HOST:PORT)"}, or
     *         as much of it as is known, or empty
     */
    static String told(SdkServiceException failure, URI asked) {
        String code = errorCode(failure);
        String from = asked == null ? "" : "from " + hostAndPort(asked);
        if (code.isEmpty() && from.isEmpty()) {
            return "";
        }
        return " (" + (code.isEmpty() ? from : SourceNames.clip(code) + (from.isEmpty() ? "" : " " + from)) + ")";
    }

    private static String hostAndPort(URI endpoint) {
        int port = endpoint.getPort() >= 0 ? endpoint.getPort()
                : "http".equalsIgnoreCase(endpoint.getScheme()) ? 80 : 443;
        return SourceNames.clip(String.valueOf(endpoint.getHost())) + ":" + port;
    }

    /** @return the error answer's {@code Retry-After}, or {@code null} */
    static String retryAfter(SdkServiceException failure) {
        return failure instanceof AwsServiceException aws && aws.awsErrorDetails() != null
                && aws.awsErrorDetails().sdkHttpResponse() != null
                ? aws.awsErrorDetails().sdkHttpResponse().firstMatchingHeader("Retry-After").orElse(null) : null;
    }

    private static boolean causedBy(Throwable failure, Class<? extends Throwable> type) {
        for (Throwable t = failure.getCause(); t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    /** @return the error answer's S3 error code ({@code NoSuchUpload}), or empty */
    static String errorCode(SdkServiceException failure) {
        if (failure instanceof AwsServiceException aws) {
            AwsErrorDetails details = aws.awsErrorDetails();
            if (details != null && details.errorCode() != null) {
                return details.errorCode();
            }
        }
        return "";
    }
}
