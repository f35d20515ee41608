package dev.safetensors.spark;

import java.io.IOException;
import java.net.URI;

/**
 * A Hadoop filesystem's failure as this library may quote and keep it. Hadoop quotes the path it was given in its
 * messages ({@code File ftp://user:password@host/x does not exist}), and a location of a Hadoop scheme may carry a
 * password in its user information, which Hadoop's FTP filesystem reads. Spark logs a task's failure with every
 * cause, so the password is cut from the message of each failure of the chain, not only from the library's own.
 */
final class HadoopFailures {
    /** How many causes are copied: Hadoop wraps a few times, never this deep. */
    private static final int MAX_DEPTH = 8;
    private static final String CUT = "***";

    private HadoopFailures() {
    }

    /**
     * @param text     a message, or {@code null}
     * @param location the location the failure is about
     * @return the message with the location's user information, raw and decoded, replaced by {@code ***}
     */
    static String scrub(String text, URI location) {
        String raw = location.getRawUserInfo();
        if (text == null || raw == null || raw.isEmpty()) {
            return text;
        }
        String out = text.replace(raw, CUT);
        String decoded = location.getUserInfo();
        return decoded == null || decoded.isEmpty() ? out : out.replace(decoded, CUT);
    }

    /**
     * @param failure  Hadoop's failure
     * @param location the location it is about
     * @return the failure itself when the location has no user information; else a copy of its chain whose
     *         messages are {@link #scrub scrubbed}, each an {@link IOException} naming the original class and keeping
     *         its stack trace
     */
    static Throwable scrubbed(Throwable failure, URI location) {
        if (failure == null || location.getRawUserInfo() == null) {
            return failure;
        }
        return copy(failure, location, 0);
    }

    private static Throwable copy(Throwable failure, URI location, int depth) {
        Throwable cause = failure.getCause();
        IOException copy = new IOException(failure.getClass().getName() + ": "
                + scrub(failure.getMessage(), location));
        copy.setStackTrace(failure.getStackTrace());
        if (cause != null && cause != failure && depth < MAX_DEPTH) {
            copy.initCause(copy(cause, location, depth + 1));
        }
        return copy;
    }
}
