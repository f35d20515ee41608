package dev.safetensors.cli.output;

import dev.safetensors.ErrorCode;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.Status;

/**
 * The command's last resort when the JVM runs out of memory: one coded line ({@code OUT_OF_MEMORY}, exit 3), never a
 * stack trace, wherever the error was thrown (the main thread, or a fetch thread whose failure came back as the cause
 * of an {@link java.io.IOException}).
 */
public final class OutOfMemory {
    private OutOfMemory() {
    }

    /**
     * @param e a failure
     * @return whether an {@link OutOfMemoryError} is it or among its causes
     */
    public static boolean in(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof OutOfMemoryError) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /**
     * @param e the failure
     * @return it as a failure of the run
     */
    public static Failure failure(Throwable e) {
        return new Failure(Status.ERROR, ErrorCode.OUT_OF_MEMORY, message(), null, e);
    }

    /** @return what to tell the user */
    public static String message() {
        return "out of memory (the JVM's maximum heap is " + Readable.bytes(Runtime.getRuntime().maxMemory())
                + "): lower --parallel or --part-size, or raise the heap with JAVA_OPTS=-Xmx...";
    }
}
