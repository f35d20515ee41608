package dev.safetensors.signing.internal;

import dev.safetensors.ErrorCode;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.StorageException;
import dev.safetensors.core.FileSource;
import dev.safetensors.signing.ModelFile;
import dev.safetensors.signing.ModelFiles;
import dev.safetensors.signing.SigningException;
import dev.safetensors.signing.SigningException.Reason;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;

/** A model on the local file system: a folder walked recursively, or one file. */
public final class LocalModelFiles implements ModelFiles {
    private final Path root;
    private final boolean singleFile;

    private LocalModelFiles(Path root, boolean singleFile) {
        this.root = root;
        this.singleFile = singleFile;
    }

    /**
     * @param path a folder or a file
     * @return the model
     * @throws NoSuchFileException if nothing is there
     */
    public static LocalModelFiles of(Path path) throws IOException {
        Path root = path.toAbsolutePath().normalize();
        if (!Files.exists(root)) {
            throw new NoSuchFileException(root.toString(), null, "no model there");
        }
        return new LocalModelFiles(root, !Files.isDirectory(root));
    }

    @Override
    public String name() {
        Path name = root.getFileName();
        return name == null ? root.toString() : name.toString();
    }

    @Override
    public boolean singleFile() {
        return singleFile;
    }

    @Override
    public List<ModelFile> list(boolean allowSymlinks, Predicate<String> ignored) throws IOException {
        if (Files.isSymbolicLink(root) && !allowSymlinks) {
            throw symlink(root);
        }
        BasicFileAttributes attributes = Files.readAttributes(root, BasicFileAttributes.class);
        List<ModelFile> files = new ArrayList<>();
        if (singleFile) {
            if (!attributes.isRegularFile()) {
                throw new StorageException(ErrorCode.NOT_A_FILE, root.toString(), "the model is not a regular file");
            }
            files.add(new ModelFile(name(), attributes.size()));
            return files;
        }
        Set<Path> entered = new HashSet<>();
        entered.add(root.toRealPath());
        walk(root, "", allowSymlinks, ignored, entered, files);
        return files;
    }

    private void walk(Path folder, String prefix, boolean allowSymlinks, Predicate<String> ignored,
                      Set<Path> entered, List<ModelFile> out) throws IOException {
        List<Path> children;
        try (Stream<Path> listing = Files.list(folder)) {
            children = listing.sorted().toList();
        }
        for (Path child : children) {
            String relative = prefix + child.getFileName();
            if (ignored.test(relative)) {
                continue;
            }
            BasicFileAttributes own = Files.readAttributes(child, BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            BasicFileAttributes attributes = own;
            if (own.isSymbolicLink()) {
                if (!allowSymlinks) {
                    throw symlink(child);
                }
                attributes = Files.readAttributes(child, BasicFileAttributes.class);
            }
            if (attributes.isDirectory()) {
                Path real = child.toRealPath();
                // a link back to a folder being walked would make the walk endless
                if (!entered.add(real)) {
                    throw new SigningException(Reason.SYMLINK_REFUSED, "symbolic link " + child
                            + " leads back into a folder being walked");
                }
                walk(child, relative + "/", allowSymlinks, ignored, entered, out);
                entered.remove(real);
            } else if (attributes.isRegularFile()) {
                out.add(new ModelFile(relative, attributes.size()));
            } else {
                throw new StorageException(ErrorCode.NOT_A_FILE, child.toString(),
                        "neither a regular file nor a folder: it cannot be part of a signed model");
            }
        }
    }

    private static SigningException symlink(Path link) {
        return new SigningException(Reason.SYMLINK_REFUSED, link + " is a symbolic link and symbolic links are "
                + "not allowed (allow_symlinks is false)");
    }

    @Override
    public RandomAccessSource open(ModelFile file) throws IOException {
        return FileSource.open(singleFile ? root : root.resolve(file.path()));
    }

    @Override
    public String toString() {
        return root.toString();
    }
}
