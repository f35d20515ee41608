package dev.safetensors.spi;

import dev.safetensors.ErrorCode;
import dev.safetensors.SourceAccessDeniedException;
import dev.safetensors.SourceChangedException;
import dev.safetensors.SourceNotFoundException;
import dev.safetensors.StorageException;

import java.io.IOException;

/**
 * The one map from an HTTP status a remote store answered to the failure it means, for every request a backend
 * makes: ranged reads ({@link AbstractRangedSource}), listing pages ({@link PagedListing}) and single requests
 * ({@link RetriedRequest}: the Hub's revision listing, a {@code HEAD}). Each caller says in its own words what was
 * asked and what to check; the code, and so the exception type a caller can catch, is decided here only:
 *
 * <ul>
 *   <li>404 and 410: {@link ErrorCode#NOT_FOUND}, a {@link SourceNotFoundException};</li>
 *   <li>401 and 403: {@link ErrorCode#ACCESS_DENIED}, a {@link SourceAccessDeniedException};</li>
 *   <li>412: {@link ErrorCode#SOURCE_CHANGED}, a {@link SourceChangedException} (a request conditional on a pinned
 *       version found another);</li>
 *   <li>408, 429 and every 5xx: {@link ErrorCode#SERVER_ERROR}, a {@link StorageException} (the statuses
 *       {@link RemotePolicy#isRetryable} names are retried before it is thrown);</li>
 *   <li>any other status (another 4xx, or a success or redirect that is not the answer asked):
 *       {@link ErrorCode#IO_ERROR}, a {@link StorageException}.</li>
 * </ul>
 */
public final class StatusMapping {
    private StatusMapping() {
    }

    /**
     * @param status an HTTP status that is not the answer asked
     * @return the code it means, as the class comment says
     */
    public static ErrorCode code(int status) {
        if (status == 404 || status == 410) {
            return ErrorCode.NOT_FOUND;
        }
        if (status == 401 || status == 403) {
            return ErrorCode.ACCESS_DENIED;
        }
        if (status == 412) {
            return ErrorCode.SOURCE_CHANGED;
        }
        if (status == 408 || status == 429 || (status >= 500 && status <= 599)) {
            return ErrorCode.SERVER_ERROR;
        }
        return ErrorCode.IO_ERROR;
    }

    /**
     * @param status  an HTTP status that is not the answer asked
     * @param name    the source or location the request was for, redacted
     * @param message what was asked and answered, and what to check, in the caller's words
     * @param cause   the client's failure behind the answer, or {@code null}
     * @return the failure of {@link #code(int) the status's code}, of the type the class comment names
     */
    public static IOException failure(int status, String name, String message, Throwable cause) {
        IOException failure = switch (code(status)) {
            case NOT_FOUND -> new SourceNotFoundException(name, message);
            case ACCESS_DENIED -> new SourceAccessDeniedException(name, message);
            case SOURCE_CHANGED -> new SourceChangedException(name, message, cause);
            default -> new StorageException(code(status), name, message, cause);
        };
        if (cause != null && failure.getCause() == null) {
            failure.initCause(cause);
        }
        return failure;
    }
}
