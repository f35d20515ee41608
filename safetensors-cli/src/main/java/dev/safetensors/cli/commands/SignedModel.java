package dev.safetensors.cli.commands;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import dev.safetensors.Location;
import dev.safetensors.core.OutputFolder;
import dev.safetensors.signing.ModelFiles;
import dev.safetensors.cli.arguments.UsageException;
import dev.safetensors.cli.backends.SourceOpener;
import dev.safetensors.cli.output.Sanitized;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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

    /**
     * The {@code --ignore} paths as the manifest records them: relative to the model root with {@code /} separators.
     * A relative path is taken as below LOCATION; an absolute one, as the reference's {@code --ignore_paths} and the
     * OMS conformance suite give them, must lie inside the local model folder.
     *
     * @param option the option's name, for the message
     * @param paths  the paths as given
     * @return the paths relative to the model root
     * @throws UsageException for an empty path, one that climbs with {@code ..}, or an absolute one outside the
     *                        local model folder
     */
    List<String> relativeIgnorePaths(String option, List<String> paths) {
        List<String> relative = new ArrayList<>();
        for (String given : paths) {
            String path = given;
            if (local.isPresent() && Path.of(given).isAbsolute()) {
                Path root = local.get().toAbsolutePath().normalize();
                Path ignored = Path.of(given).normalize();
                if (!Files.isDirectory(root) || !ignored.startsWith(root) || ignored.equals(root)) {
                    throw new UsageException(option + " " + Sanitized.line(given, 200) + ": an absolute path must lie"
                            + " inside the model folder " + Sanitized.line(root.toString(), 200));
                }
                path = root.relativize(ignored).toString().replace(root.getFileSystem().getSeparator(), "/");
            }
            if (path.isEmpty() || path.startsWith("/") || List.of(path.split("/", -1)).contains("..")) {
                throw new UsageException(option + " " + Sanitized.line(given, 200) + ": give a path below LOCATION"
                        + " (relative to it, or absolute inside a local model folder)");
            }
            relative.add(path);
        }
        return relative;
    }
}
