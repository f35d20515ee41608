package dev.safetensors.signing;

import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.core.SourceRegistry;
import dev.safetensors.signing.internal.LocalModelFiles;
import dev.safetensors.signing.internal.RegistryModelFiles;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;

/**
 * A model as the signer and the verifier see it: a set of regular files under a root, each readable by position.
 * Implementations list and open; which files belong to the manifest (ignore paths, the signature file) is decided
 * by the caller through the predicate given to {@link #list}.
 *
 * <p>Implementations are safe for concurrent {@link #open} calls: files are hashed in parallel.
 */
public interface ModelFiles {

    /**
     * The model's name for the statement's subject: the folder's or the single file's name. Informational only:
     * verification never depends on it.
     *
     * @return the name
     */
    String name();

    /**
     * @return whether the model is one file rather than a folder; its file is then named by its file name, and a
     *         manifest resource named {@code .} (as the reference implementation names it) means that file
     */
    boolean singleFile();

    /**
     * Lists the model's regular files, in no particular order.
     *
     * @param allowSymlinks whether symbolic links are followed; if not, meeting one is an error
     * @param ignored       given a path relative to the root ({@code /} separators), whether to leave it out; a
     *                      folder left out is not entered
     * @return the files
     * @throws SigningException {@link SigningException.Reason#SYMLINK_REFUSED} for a symbolic link that is not
     *                          allowed, or that loops
     * @throws IOException      if the model cannot be listed, or holds something that is neither a file nor a folder
     *                          ({@link dev.safetensors.ErrorCode#NOT_A_FILE})
     */
    List<ModelFile> list(boolean allowSymlinks, Predicate<String> ignored) throws IOException;

    /**
     * @param file a file {@link #list} returned
     * @return its bytes, positionally readable; the caller closes it
     * @throws IOException if it cannot be opened
     */
    RandomAccessSource open(ModelFile file) throws IOException;

    /**
     * A local folder, or a single local file.
     *
     * @param path the folder or the file
     * @return the model
     * @throws IOException if the path does not exist ({@link java.nio.file.NoSuchFileException})
     */
    static ModelFiles of(Path path) throws IOException {
        return LocalModelFiles.of(path);
    }

    /**
     * The objects under a store prefix ({@code s3://bucket/model/}, a local folder's {@code file:} URI...), listed
     * recursively and read through the registry's providers. Stores have no symbolic links.
     *
     * @param registry the registry that lists and opens the prefix; it stays the caller's to close
     * @param prefix   the model's prefix; one not ending in {@code /} is listed as if it did
     * @return the model
     */
    static ModelFiles of(SourceRegistry registry, Location prefix) {
        return new RegistryModelFiles(registry, prefix);
    }
}
