package dev.safetensors.cli;

/**
 * A command line the command cannot run: an unknown option, a missing or malformed value, or flags that contradict
 * each other. {@link Main} prints its message and a hint and exits with {@link Status#USAGE}; it never leaves the
 * command.
 */
final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message what is wrong, for the user */
    UsageException(String message) {
        super(message);
    }
}
