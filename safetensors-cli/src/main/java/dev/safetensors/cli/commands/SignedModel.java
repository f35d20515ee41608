package dev.safetensors.cli.commands;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.Location;
import dev.safetensors.core.OutputFolder;
import dev.safetensors.signing.ModelFiles;
import dev.safetensors.cli.backends.SourceOpener;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The model a {@code sign} or {@code verify --signature} LOCATION names: a local folder or file, or a store prefix
 * ({@code s3://}, {@code gs://}, {@code az://}, {@code hf://}) read through the run's registry, whose backend is
 * loaded on first use.
 *
 * @param files the model's files
 * @param local the local folder or file, when the model is local
 */
record SignedModel(ModelFiles files, Optional<Path> local) {

    /**
     * @param location the LOCATION argument
     * @param opener   the run's sources
     * @return the model
     * @throws IOException {@link ErrorCode#INVALID_SOURCE} for an empty or malformed location, the failure of a
     *                     local path that does not exist
     */
    static SignedModel of(String location, SourceOpener opener) throws IOException {
        if (location.isEmpty()) {
            throw new InvalidLocationException(ErrorCode.INVALID_SOURCE, "empty LOCATION: name a model folder, a"
                    + " file or a prefix");
        }
        Optional<Location> prefix = OutputFolder.store(location);
        if (prefix.isPresent()) {
            return new SignedModel(ModelFiles.of(opener.registry(), prefix.get()), Optional.empty());
        }
        Path path = OutputFolder.local(location);
        return new SignedModel(ModelFiles.of(path), Optional.of(path));
    }
}
