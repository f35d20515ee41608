package dev.safetensors.cli.output;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether a file descriptor is a pipe or a socket, from its file type ({@code st_mode}) as the JDK's {@code unix}
 * attribute view reports it through {@code /proc/self/fd} (Linux) or {@code /dev/fd} (macOS). Where neither is
 * readable the answer is "no", so a failed write stays a reported error.
 */
final class PipeProbe {
    private static final int TYPE_MASK = 0170000;
    private static final int FIFO = 0010000;
    private static final int SOCKET = 0140000;

    private PipeProbe() {
    }

    /** @return whether standard output (descriptor 1) is a pipe or a socket */
    static boolean stdout() {
        for (String folder : new String[] {"/proc/self/fd", "/dev/fd"}) {
            Path fd = Path.of(folder, "1");
            if (Files.exists(fd)) {
                return isPipe(fd);
            }
        }
        return false;
    }

    /**
     * @param path a file, followed if it is a link
     * @return whether it is a named pipe or a socket; {@code false} if its type cannot be read
     */
    static boolean isPipe(Path path) {
        try {
            int type = (Integer) Files.getAttribute(path, "unix:mode") & TYPE_MASK;
            return type == FIFO || type == SOCKET;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            return false;
        }
    }
}
