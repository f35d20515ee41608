package dev.safetensors.cli.results;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.SafetensorsException;
import dev.safetensors.UnsupportedDtypeException;
import dev.safetensors.core.Sources;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.NoSuchFileException;

/**
 * Why a source did not pass: a verdict, a stable code and a one-line message that says what is wrong and, where
 * the fix is clear, what to do. The code is the library's {@link ErrorCode}, found by type with
 * {@link ErrorCode#of(Throwable)} (never by reading a message), so the command and the library speak one vocabulary;
 * the codes no exception carries come from the checks that find them ({@link ErrorCode#SIZE_MISMATCH},
 * {@link ErrorCode#SHA256_MISMATCH}, {@link ErrorCode#NOT_IN_MANIFEST}) or from what is not an {@link IOException}
 * ({@link ErrorCode#OUT_OF_MEMORY}, {@link ErrorCode#INTERNAL_ERROR}: a bug).
 *
 * @param status  the verdict, never {@link Status#VALID}
 * @param code    the stable code
 * @param message the message, without the source name or the code
 * @param check   the check that failed, or {@code null} when the source could not be examined at all
 * @param cause   the exception behind it, kept for {@code --debug}; may be {@code null}
 */
public record Failure(Status status, ErrorCode code, String message, Check check, Throwable cause) {
    private static final String NOT_A_FILE_HINT = ": pass a .safetensors file, or the *.safetensors.index.json of a"
            + " sharded checkpoint";

    /**
     * @param status  the verdict
     * @param code    the stable code
     * @param message the message
     * @param check   the check that failed
     * @return a failure with no exception behind it
     */
    public static Failure of(Status status, ErrorCode code, String message, Check check) {
        return new Failure(status, code, message, check, null);
    }

    /**
     * @param e      what was thrown while examining the source
     * @param source the source's name, left out of the message when the thrower put it first
     * @return the failure it means
     */
    public static Failure from(Throwable e, String source) {
        if (!(e instanceof IOException)) {
            return new Failure(Status.ERROR, ErrorCode.INTERNAL_ERROR, "internal error: " + e
                    + " (run with --debug for the stack trace, and please report it)", null, e);
        }
        ErrorCode code = ErrorCode.of(e);
        if (e instanceof SafetensorsException s) {
            Status status = e instanceof UnsupportedDtypeException ? Status.UNSUPPORTED
                    : e instanceof InvalidHeaderException ? Status.INVALID : Status.ERROR;
            Check check = status == Status.ERROR ? null : Check.failedBy(code);
            return new Failure(status, code, described(s) + hint(code), check, e);
        }
        return new Failure(Status.ERROR, code, storageMessage(e, code, source), null, e);
    }

    /** The message of a content or storage failure from its parts: the tensor, the detail, the header offset. */
    private static String described(SafetensorsException s) {
        String detail = s.detail() == null || s.detail().isBlank() ? "no details given" : s.detail();
        String tensor = s.tensor().map(t -> "tensor \"" + t + "\": ").orElse("");
        String offset = s.headerOffset().isPresent() ? " (at header byte " + s.headerOffset().getAsLong() + ")" : "";
        return tensor + detail + offset + (s.code() == ErrorCode.NOT_A_FILE ? NOT_A_FILE_HINT : "");
    }

    /** A failure of a JDK type: its reason where the type has one, else its message without the source's name. */
    private static String storageMessage(Throwable e, ErrorCode code, String source) {
        String reason = e instanceof FileSystemException f ? f.getReason() : null;
        if (e instanceof FileSystemLoopException) {
            return "symbolic links lead in a loop: fix the links or pass the file itself";
        }
        if (e instanceof NoSuchFileException) {
            return reason != null ? reason : "no such file: check the path";
        }
        if (e instanceof AccessDeniedException) {
            return reason != null ? reason
                    : "permission denied: check the file's permissions (or run as a user who may read it)";
        }
        if (reason != null) {
            return reason;
        }
        String text = withoutSource(e.getMessage(), source);
        return switch (code) {
            // Backends name the URI as they parsed it (without a generation or query), which is not always the
            // source as typed: drop that name too, whatever its spelling, so the line names the source once.
            case INVALID_SOURCE, INVALID_ENDPOINT, UNSUPPORTED_SCHEME -> withoutLeadingUri(text);
            case NETWORK -> "network failure: " + text;
            case TRUNCATED -> text + " (the object shrank while it was read?)";
            default -> text;
        };
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
