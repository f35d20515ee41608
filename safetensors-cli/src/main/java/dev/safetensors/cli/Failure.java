package dev.safetensors.cli;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.SafetensorsException;
import dev.safetensors.UnsupportedDtypeException;
import dev.safetensors.core.Sources;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.MalformedURLException;
import java.net.UnknownHostException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

/**
 * Why a source did not pass: a verdict, a stable code and a one-line message that says what is wrong and, where
 * the fix is clear, what to do. Library codes ({@link ErrorCode}) are used as they are; failures the library reports
 * as plain I/O exceptions get codes of their own ({@code NOT_FOUND}, {@code ACCESS_DENIED}, {@code NOT_A_FILE},
 * {@code UNSUPPORTED_SCHEME}, {@code INVALID_SOURCE}, {@code NETWORK}, {@code IO_ERROR}), and {@code verify} adds {@code SIZE_MISMATCH} and
 * {@code SHA256_MISMATCH}.
 *
 * @param status  the verdict, never {@link Status#VALID}
 * @param code    the stable code
 * @param message the message, without the source name or the code
 * @param check   the check that failed, or {@code null} when the source could not be examined at all
 * @param cause   the exception behind it, kept for {@code --debug}; may be {@code null}
 */
record Failure(Status status, String code, String message, Check check, Throwable cause) {

    /**
     * @param status  the verdict
     * @param code    the stable code
     * @param message the message
     * @param check   the check that failed
     * @return a failure with no exception behind it
     */
    static Failure of(Status status, String code, String message, Check check) {
        return new Failure(status, code, message, check, null);
    }

    /**
     * @param e      what was thrown while examining the source
     * @param source the source's name, stripped from the start of the message if the thrower put it there
     * @return the failure it means
     */
    static Failure from(Throwable e, String source) {
        String text = withoutSource(e.getMessage(), source);
        if (e instanceof SafetensorsException s) {
            String detail = withoutSource(e.getMessage(), s.source());
            String suffix = " [" + s.code() + "]";
            if (detail.endsWith(suffix)) {
                detail = detail.substring(0, detail.length() - suffix.length());
            }
            Status status = e instanceof UnsupportedDtypeException ? Status.UNSUPPORTED
                    : e instanceof InvalidHeaderException ? Status.INVALID : Status.ERROR;
            Check check = status == Status.ERROR ? null : Check.failedBy(s.code());
            return new Failure(status, s.code().name(), detail + hint(s.code()), check, e);
        }
        if (e instanceof SourceProblem p) {
            return new Failure(Status.ERROR, p.code(), text, null, e);
        }
        if (e instanceof MalformedURLException) {
            // Backends name the URI as they parsed it (without a generation or query), which is not always the
            // source as typed: drop that name too, whatever its spelling, so the line names the source once.
            return new Failure(Status.ERROR, "INVALID_SOURCE", withoutLeadingUri(text), null, e);
        }
        if (e instanceof NoSuchFileException n) {
            String reason = n.getReason() != null ? n.getReason() : "no such file: check the path";
            return new Failure(Status.ERROR, "NOT_FOUND", reason, null, e);
        }
        if (e instanceof AccessDeniedException a) {
            String reason = a.getReason() != null ? a.getReason()
                    : "permission denied: check the file's permissions (or run as a user who may read it)";
            return new Failure(Status.ERROR, "ACCESS_DENIED", reason, null, e);
        }
        if (e instanceof FileSystemException f && f.getReason() != null && f.getReason().contains("directory")) {
            return new Failure(Status.ERROR, "NOT_A_FILE", "is a directory: pass a .safetensors file, or the"
                    + " *.safetensors.index.json of a sharded checkpoint", null, e);
        }
        if (e instanceof UnknownHostException || e instanceof ConnectException) {
            return new Failure(Status.ERROR, "NETWORK", "network failure: " + text, null, e);
        }
        if (e instanceof EOFException) {
            return new Failure(Status.ERROR, "TRUNCATED", text + " (the object shrank while it was read?)", null, e);
        }
        if (e instanceof InterruptedIOException) {
            return new Failure(Status.ERROR, "INTERRUPTED", text, null, e);
        }
        if (e instanceof IOException) {
            return new Failure(Status.ERROR, "IO_ERROR", text, null, e);
        }
        return new Failure(Status.ERROR, "INTERNAL_ERROR", "internal error: " + e
                + " (run with --debug for the stack trace, and please report it)", null, e);
    }

    private static String withoutLeadingUri(String text) {
        int colon = text.indexOf(": ");
        return Sources.asUri(text.substring(0, Math.max(colon, 0))) != null ? text.substring(colon + 2) : text;
    }

    private static String hint(ErrorCode code) {
        return switch (code) {
            case HEADER_TOO_SMALL -> "; an empty or truncated file: download it again";
            case HEADER_EXCEEDS_FILE -> "; download it again";
            case OUT_OF_FILE -> "; the file ends before its tensors do (truncated download?): download it again";
            case HEADER_TOO_LARGE -> "; if you trust the file, raise the bound with --max-header-bytes N or use"
                    + " --policy official";
            case UNSUPPORTED_DTYPE -> "; --policy official accepts every dtype the official format names";
            default -> "";
        };
    }

    private static String withoutSource(String message, String source) {
        if (message == null || message.isBlank()) {
            return "no details given";
        }
        String prefix = source + ": ";
        return source != null && message.startsWith(prefix) && message.length() > prefix.length()
                ? message.substring(prefix.length()) : message;
    }
}
