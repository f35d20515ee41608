package dev.safetensors.core;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A check of a file written but not yet renamed into place, run by {@link ShardedWriter} once every file is complete
 * and before the first rename: throwing stops the write, and the folder is left as it was.
 */
@FunctionalInterface
public interface StagedCheck {
    /**
     * @param target the name the file will have
     * @param staged the complete temporary file, closed, to read
     * @throws IOException to stop the write; the exception is passed to the writer's caller
     */
    void check(Path target, Path staged) throws IOException;
}
