package dev.safetensors.cli;

import java.io.IOException;

/**
 * A source the command refuses to open, for a reason the storage layer has no exception for: a FIFO or device in
 * place of a file (opening one would block), or a URI scheme no backend serves.
 */
final class SourceProblem extends IOException {
    private static final long serialVersionUID = 1L;

    private final String code;

    /**
     * @param code    the stable code for output, such as {@code NOT_A_FILE}
     * @param message what is wrong and what to do, without the source name
     */
    SourceProblem(String code, String message) {
        super(message);
        this.code = code;
    }

    /** @return the stable code for output */
    String code() {
        return code;
    }
}
