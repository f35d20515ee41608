package dev.safetensors.gcs;

import dev.safetensors.SourceChangedException;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;

/**
 * Turns an unsuccessful status (from a media GET or a metadata request) into the exception callers handle:
 * 404 is {@link NoSuchFileException}, 401 and 403 are {@link AccessDeniedException}, 412 (the pinned generation
 * is no longer the live object) is {@link SourceChangedException}; anything else is a plain {@link IOException}.
 */
final class StatusFailures {
    private StatusFailures() {
    }

    /**
     * @param name             the source name
     * @param status           the HTTP status
     * @param serverMessage    what the server said, already clipped, or an empty string
     * @param generation       the generation the request asked for, or -1
     * @param learned          whether that generation was learned from an earlier response: a 404 then means the
     *                         object was deleted or replaced while being read
     * @param cause            the client's exception that reported the status, or {@code null}
     */
    static IOException of(String name, int status, String serverMessage, long generation, boolean learned,
                          Throwable cause) {
        String said = serverMessage.isEmpty() ? "" : " (server said: " + serverMessage + ")";
        switch (status) {
            case 404:
                NoSuchFileException missing = withCause(
                        new NoSuchFileException(name, null, "no such object or bucket" + said), cause);
                if (learned) {
                    return new SourceChangedException(name, "generation " + generation
                            + " was read before but is gone now (404)", missing);
                }
                return missing;
            case 401:
                return withCause(new AccessDeniedException(name, null, "HTTP 401: the request carried no valid"
                        + " credentials; check application default credentials or the Storage passed in" + said), cause);
            case 403:
                return withCause(new AccessDeniedException(name, null, "HTTP 403: the credentials in use may not read"
                        + " this object (storage.objects.get is needed)" + said), cause);
            case 412:
                return new SourceChangedException(name, "generation " + generation
                        + " is no longer the live object (HTTP 412 precondition failed)" + said, cause);
            default:
                return new IOException(name + ": the storage answered HTTP " + status + said, cause);
        }
    }

    /** The file system exceptions have no constructor taking a cause, and none set yet, so it can be added. */
    private static <T extends IOException> T withCause(T failure, Throwable cause) {
        if (cause != null) {
            failure.initCause(cause);
        }
        return failure;
    }
}
