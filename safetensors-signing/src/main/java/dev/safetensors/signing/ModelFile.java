package dev.safetensors.signing;

import java.util.Objects;

/**
 * A regular file of a model.
 *
 * @param path its path relative to the model root with {@code /} separators; for a single-file model, its file name
 * @param size its length in bytes as listed
 */
public record ModelFile(String path, long size) {
    /**
     * Checks the path and the size.
     *
     * @param path the path relative to the model root
     * @param size the length in bytes
     * @throws IllegalArgumentException if the size is negative or the path empty
     */
    public ModelFile {
        Objects.requireNonNull(path, "path");
        if (path.isEmpty() || size < 0) {
            throw new IllegalArgumentException("a model file needs a path and a size: \"" + path + "\", " + size);
        }
    }
}
