package dev.safetensors.http;

import dev.safetensors.spi.SourceNames;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;

/**
 * Turns an error answer (4xx, 5xx) into the exception a caller can act on: 404 and 410 are
 * {@link NoSuchFileException} (naming repository, revision and path for a Hub file), 401 and 403 are
 * {@link AccessDeniedException} saying that a token may be needed, and the rest a plain {@link IOException} with
 * the status, the attempts made and the server's {@code X-Error-Message} if any. Messages carry the source name
 * and a redacted URL only.
 */
final class StatusFailures {
    private StatusFailures() {
    }

    /**
     * @param name     the source name
     * @param hub      the Hub file asked for, or {@code null} for a plain URL
     * @param commit   the commit the request resolved against, or {@code null}
     * @param hasToken whether a token was configured
     * @param answer   the error answer
     * @return the exception to throw
     */
    static IOException of(String name, HubPath hub, String commit, boolean hasToken, FinalResponse answer) {
        int status = answer.status();
        String serverSays = answer.header("X-Error-Message") == null ? ""
                : "; the server says: " + SourceNames.clip(answer.header("X-Error-Message"));
        String where = "GET " + SourceNames.redact(answer.url()) + " answered " + status;
        if (status == 404 || status == 410) {
            String what = hub == null ? where
                    : "not found on the Hub: repository " + hub.repository() + ", revision " + hub.revision()
                    + (commit == null || commit.equals(hub.revision()) ? "" : " (commit " + SourceNames.clip(commit) + ")")
                    + ", path " + hub.path() + " (" + where + ")";
            return new NoSuchFileException(name, null, what + serverSays);
        }
        if (status == 401 || status == 403) {
            String advice = hasToken
                    ? "the token was refused or does not grant access (it is sent only to the Hub endpoint over https"
                    + " or loopback)"
                    : "a token may be needed: set HF_TOKEN or configure one in HttpSettings";
            return new AccessDeniedException(name, null, where + ": access denied; " + advice + serverSays);
        }
        if (status == 429 || status >= 500) {
            String retryAfter = answer.header("Retry-After") == null ? ""
                    : " (Retry-After: " + SourceNames.clip(answer.header("Retry-After")) + ")";
            return new IOException(name + ": " + where + retryAfter + " after " + answer.attempts() + " attempt"
                    + (answer.attempts() == 1 ? "" : "s") + serverSays);
        }
        return new IOException(name + ": " + where + serverSays);
    }
}
