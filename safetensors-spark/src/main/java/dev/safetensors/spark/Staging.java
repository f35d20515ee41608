package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The driver's side of a write's output folder: a staging folder inside it for the job (hidden, one per job), the
 * renames that publish the committed files at job commit (the index or manifest last, so the folder is complete
 * exactly when it is there), and the clean-up that leaves nothing of an aborted job.
 */
final class Staging {
    /** The start of every staging folder's name. */
    static final String PREFIX = ".safetensors-staging-";
    private final Path output;
    private final Path folder;
    private final boolean createdOutput;
    private final boolean overwrite;
    private final List<Path> published = new ArrayList<>();

    private Staging(Path output, Path folder, boolean createdOutput, boolean overwrite) {
        this.output = output;
        this.folder = folder;
        this.createdOutput = createdOutput;
        this.overwrite = overwrite;
    }

    /**
     * Creates the job's staging folder, and the output folder if missing.
     *
     * @throws IOException {@link ErrorCode#WRITE_FAILED} when the output exists and holds files and the mode is not
     *                     overwrite, or when it is not a local folder
     */
    static Staging prepare(WriteOptions options) throws IOException {
        Path output = output(options.path());
        boolean created = false;
        if (!Files.exists(output, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(output);
            created = true;
        } else if (!Files.isDirectory(output)) {
            throw new StorageException(ErrorCode.NOT_A_FILE, output.toString(), "is not a folder to write into");
        } else if (!options.overwrite()) {
            refuseIfHoldsFiles(output);
        }
        Path folder = Files.createDirectory(output.resolve(PREFIX + UUID.randomUUID()));
        return new Staging(output, folder, created, options.overwrite());
    }

    /** @return the local folder a location names */
    static Path output(String location) throws IOException {
        Path local = Locations.localPath(Locations.normalize(location));
        if (local == null) {
            throw new StorageException(ErrorCode.UNSUPPORTED_SCHEME, location, "the safetensors writer writes to"
                    + " local (or mounted) folders only");
        }
        return local.toAbsolutePath();
    }

    /** Refuses an output folder that holds anything but other jobs' staging folders. */
    static void refuseIfHoldsFiles(Path output) throws IOException {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(output)) {
            for (Path p : entries) {
                if (!p.getFileName().toString().startsWith(PREFIX)) {
                    throw new StorageException(ErrorCode.WRITE_FAILED, output.toString(), "exists and is not empty;"
                            + " write with mode(\"overwrite\") to replace it");
                }
            }
        }
    }

    /** @return the staging folder, where task attempts make their own folders */
    Path folder() {
        return folder;
    }

    /** @return the output folder */
    Path output() {
        return output;
    }

    /**
     * Publishes a job: removes the old output (overwrite) or checks it is still empty, renames each committed file
     * to its final name, writes the last file (the index or manifest) atomically, and deletes the staging folder.
     *
     * @param files committed files by final name, in order
     * @param last  the final name and bytes of the file that marks the output complete, or null
     */
    void publish(Map<String, Path> files, String lastName, byte[] last) throws IOException {
        if (overwrite) {
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(output)) {
                for (Path p : entries) {
                    if (!p.equals(folder)) {
                        deleteTree(p);
                    }
                }
            }
        } else {
            refuseIfHoldsFiles(output);
        }
        for (Map.Entry<String, Path> f : files.entrySet()) {
            move(f.getValue(), output.resolve(f.getKey()));
            published.add(output.resolve(f.getKey()));
        }
        if (last != null) {
            Path temp = folder.resolve("last.json");
            Files.write(temp, last);
            move(temp, output.resolve(lastName));
        }
        deleteTree(folder);
    }

    /**
     * Leaves nothing of the job: the staging folder deleted, the files a failed publish renamed already, and the
     * output folder too if the job created it.
     */
    void abort() throws IOException {
        deleteTree(folder);
        for (Path p : published) {
            Files.deleteIfExists(p);
        }
        if (createdOutput) {
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(output)) {
                if (!entries.iterator().hasNext()) {
                    Files.deleteIfExists(output);
                }
            }
        }
    }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException e) {
            throw new StorageException(ErrorCode.WRITE_FAILED, to.toString(), "exists: another writer created it", e);
        }
    }

    /** Deletes a file or a folder and everything under it; a missing one is no failure. */
    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        List<Path> all = new ArrayList<>();
        if (Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
            try (var walk = Files.walk(root)) {
                walk.forEach(all::add);
            }
        } else {
            all.add(root);
        }
        for (int i = all.size() - 1; i >= 0; i--) {
            Files.deleteIfExists(all.get(i));
        }
    }
}
