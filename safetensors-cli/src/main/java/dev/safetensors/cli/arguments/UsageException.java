package dev.safetensors.cli.arguments;

import dev.safetensors.cli.results.Status;

/**
 * A command line the command cannot run: an unknown option, a missing or malformed value, or flags that contradict
 * each other. {@code Main} prints its message and a hint and exits with {@link Status#USAGE}; it never leaves the
 * command.
 */
public final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message what is wrong, for the user */
    public UsageException(String message) {
        super(message);
    }
}
