package dev.safetensors;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One checkpoint a repository holds, as a {@link RandomAccessSourceProvider#listCheckpoints} listing names it: a
 * single {@code .safetensors} file or a {@code .safetensors.index.json} with its shards beside it, in the repository
 * root or in a subfolder (a diffusers component such as {@code unet/} or {@code text_encoder/}).
 *
 * @param folder  the folder inside the repository, {@code ""} for the root; what a caller passes to pick this one
 * @param file    the single file or the index, pinned to the listing's commit where the storage has commits
 * @param sharded whether {@code file} is an index
 * @param config  the {@code config.json} beside {@code file}, when the repository holds one
 */
public record RepositoryCheckpoint(String folder, Location file, boolean sharded, Optional<Location> config) {
    /**
     * The file names that make a folder a checkpoint, in the order they are preferred when a folder holds several:
     * the single files first, then the indexes, as {@code transformers}, {@code diffusers} and huggingface.js
     * {@code parseSafetensorsMetadata} look for them.
     */
    public static final List<String> FILE_NAMES = List.of("model.safetensors", "diffusion_pytorch_model.safetensors",
            "model.safetensors.index.json", "diffusion_pytorch_model.safetensors.index.json");

    /**
     * Checks that no component is {@code null}.
     *
     * @param folder the folder, {@code ""} for the root
     * @param file the single file or the index
     * @param sharded whether {@code file} is an index
     * @param config the {@code config.json} beside it, if any
     */
    public RepositoryCheckpoint {
        Objects.requireNonNull(folder, "folder");
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(config, "config");
    }
}
