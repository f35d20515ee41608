package dev.safetensors.cli.results;

import java.util.Locale;

/**
 * The verdict on one source, and the exit code it implies: 0 when every source is valid, 1 when some source is
 * invalid or unsupported, 3 when some source could not be read (which wins, because the answer is incomplete).
 * Exit code 2, a usage error, comes from the command line parser ({@code ArgumentParser}) or a command's own
 * checks (a {@code UsageException}).
 */
public enum Status {
    /** Every check performed passed. */
    VALID("OK", 0),
    /** A rule is broken, or a size or digest differs from what was expected. */
    INVALID("INVALID", 1),
    /** Well formed, with a dtype outside the policy. */
    UNSUPPORTED("UNSUPPORTED", 1),
    /** The source could not be opened or read: missing, unreadable, unknown scheme, network failure. */
    ERROR("ERROR", 3);

    /** Exit code for an invalid command line. */
    public static final int USAGE = 2;

    private final String label;
    private final int exitCode;

    Status(String label, int exitCode) {
        this.label = label;
        this.exitCode = exitCode;
    }

    /** @return the word printed at the start of a text result line */
    public String label() {
        return label;
    }

    /** @return the value of the JSON {@code status} field */
    public String json() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @return the process exit code this status alone implies */
    public int exitCode() {
        return exitCode;
    }

    /**
     * @param other another verdict
     * @return the verdict that determines the exit code when both occur
     */
    public Status worse(Status other) {
        if (other.exitCode != exitCode) {
            return other.exitCode > exitCode ? other : this;
        }
        return other.ordinal() > ordinal() ? other : this;
    }
}
