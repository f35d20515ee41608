package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.ErrorCoded;
import dev.safetensors.SafetensorsException;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.StorageException;
import dev.safetensors.core.SafetensorsFile;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The driver's side of a write's output folder: a staging folder inside it for the job (hidden, one per job), the
 * renames that publish the committed files at job commit (the index or manifest last, so the folder is complete
 * exactly when it is there), and the clean-up that leaves nothing of an aborted job.
 *
 * <p>An overwrite never loses the old content: it is first renamed, entry by entry, into {@value #PREVIOUS} inside
 * the staging folder, the new files are renamed in, and only then is the staging folder, the old content with it,
 * deleted. When a rename fails the new files are taken out again and the old entries renamed back, so the folder
 * holds the old content whole; a job killed between the renames leaves the old entries in the hidden staging
 * folder's {@value #PREVIOUS}, where a person can take them back.
 */
final class Staging implements JobOutput {
    /** The start of every staging folder's name. */
    static final String PREFIX = ".safetensors-staging-";
    /** The staging folder's child that holds an overwritten output's old entries until the new ones are in. */
    static final String PREVIOUS = "previous";
    private static final System.Logger LOG = System.getLogger(Staging.class.getName());
    private final Path output;
    private final Path folder;
    private final boolean createdOutput;
    private final boolean overwrite;
    private final FileMoves moves;
    private final List<Path> published = new ArrayList<>();
    /** Whether {@link #PREVIOUS} holds old entries that could not be renamed back, which nothing may delete. */
    private boolean stranded;

    /** The renames and deletions a publish makes: the file system's, or a test's that fails where it is told. */
    interface FileMoves {
        /** The file system's own: atomic renames, deletions of what exists. */
        FileMoves FILE_SYSTEM = new FileMoves() {
        };

        /** Renames {@code from} to {@code to} atomically (both in the output folder's file system). */
        default void move(Path from, Path to) throws IOException {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
        }

        /** Deletes a file or an empty folder, if it exists. */
        default void delete(Path path) throws IOException {
            Files.deleteIfExists(path);
        }
    }

    private Staging(Path output, Path folder, boolean createdOutput, boolean overwrite, FileMoves moves) {
        this.output = output;
        this.folder = folder;
        this.createdOutput = createdOutput;
        this.overwrite = overwrite;
        this.moves = moves;
    }

    /**
     * Creates the job's staging folder, and the output folder if missing.
     *
     * @throws IOException {@link ErrorCode#ALREADY_EXISTS} when the output exists and holds files and the mode is not
     *                     overwrite, or when it is not a local folder
     */
    static Staging prepare(WriteOptions options) throws IOException {
        return prepare(options, FileMoves.FILE_SYSTEM);
    }

    /** As {@link #prepare(WriteOptions)}, publishing through {@code moves}. */
    static Staging prepare(WriteOptions options, FileMoves moves) throws IOException {
        Path output = output(options.path());
        boolean created = false;
        try {
            if (!Files.exists(output, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(output);
                created = true;
            } else if (!Files.isDirectory(output)) {
                throw new StorageException(ErrorCode.NOT_A_FILE, output.toString(), "is not a folder to write into");
            } else if (!options.overwrite()) {
                refuseIfHoldsFiles(output);
            }
            Path folder = Files.createDirectory(output.resolve(PREFIX + UUID.randomUUID()));
            return new Staging(output, folder, created, options.overwrite(), moves);
        } catch (IOException e) {
            throw coded(e, output.toString(), "cannot prepare the output folder");
        }
    }

    /** @return the local folder a location names */
    static Path output(String location) throws IOException {
        // the one rule of every writer: a location with a scheme is never a local path
        return dev.safetensors.core.OutputFolder.local(Locations.normalize(location)).toAbsolutePath();
    }

    /** Refuses an output folder that holds anything but other jobs' staging folders. */
    static void refuseIfHoldsFiles(Path output) throws IOException {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(output)) {
            for (Path p : entries) {
                if (!p.getFileName().toString().startsWith(PREFIX)) {
                    throw new StorageException(ErrorCode.ALREADY_EXISTS, output.toString(), "exists and is not empty;"
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

    @Override
    public String display() {
        return output.toString();
    }

    @Override
    public String where(TaskFiles task, WrittenFile file) {
        return Path.of(task.folder()).resolve(file.name()).toString();
    }

    /** @return false: the files are numbered in partition order at job commit, when their count is known */
    @Override
    public boolean keepsNames() {
        return false;
    }

    @Override
    public SafetensorsHeader header(String where) throws IOException {
        try (SafetensorsFile f = SafetensorsFile.open(Path.of(where))) {
            return f.header();
        }
    }

    /**
     * Publishes a job: moves the old output aside (overwrite) or checks it is still empty, renames each committed
     * file to its final name, writes the last file (the index or manifest), and deletes the staging folder, the old
     * output with it. When a step before the last fails, the new files are taken out and the old ones put back.
     *
     * @param where committed files by final name, in order
     * @param last  the final name and bytes of the file that marks the output complete, or null
     * @throws IOException {@link ErrorCode#WRITE_FAILED} naming what failed and whether the old output is back
     */
    @Override
    public void publish(Map<String, String> where, String lastName, byte[] last) throws IOException {
        Map<String, Path> files = new LinkedHashMap<>();
        where.forEach((name, path) -> files.put(name, Path.of(path)));
        List<String> aside = List.of();
        if (overwrite) {
            aside = moveAside();
        } else {
            refuseIfHoldsFiles(output);
        }
        try {
            for (Map.Entry<String, Path> f : files.entrySet()) {
                Path to = output.resolve(f.getKey());
                moves.move(f.getValue(), to);
                published.add(to);
            }
            if (last != null) {
                Path temp = folder.resolve("last.json");
                Files.write(temp, last);
                Path to = output.resolve(lastName);
                moves.move(temp, to);
                published.add(to);
            }
        } catch (IOException e) {
            throw undo(e, aside, "could not rename the new files into place");
        }
        // the new output is complete: from here on nothing of it is taken back, whatever fails
        published.clear();
        try {
            deleteTree(folder, moves);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "the write into " + output + " is complete, but its staging folder "
                    + folder.getFileName() + " (with the replaced content, if any) could not be deleted: " + e);
        }
    }

    /**
     * Renames every entry of the output but the staging folder into {@link #PREVIOUS}.
     *
     * @return the names moved
     */
    private List<String> moveAside() throws IOException {
        Path previous = folder.resolve(PREVIOUS);
        List<String> names = new ArrayList<>();
        try {
            Files.createDirectory(previous);
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(output)) {
                for (Path p : entries) {
                    if (!p.equals(folder)) {
                        names.add(p.getFileName().toString());
                    }
                }
            }
        } catch (IOException e) {
            throw coded(e, output.toString(), "cannot move the old content aside");
        }
        List<String> moved = new ArrayList<>();
        try {
            for (String name : names) {
                moves.move(output.resolve(name), previous.resolve(name));
                moved.add(name);
            }
        } catch (IOException e) {
            throw undo(e, moved, "could not move the old content aside");
        }
        return moved;
    }

    /**
     * Takes the published new files out and renames the old entries back, going on past each failure.
     *
     * @return the failure to throw, saying whether the old content is back whole
     */
    private StorageException undo(IOException cause, List<String> aside, String what) {
        for (int i = published.size() - 1; i >= 0; i--) {
            try {
                moves.delete(published.get(i));
            } catch (IOException e) {
                cause.addSuppressed(e);
            }
        }
        published.clear();
        Path previous = folder.resolve(PREVIOUS);
        List<String> left = new ArrayList<>();
        for (String name : aside) {
            try {
                moves.move(previous.resolve(name), output.resolve(name));
            } catch (IOException e) {
                cause.addSuppressed(e);
                left.add(name);
            }
        }
        stranded = !left.isEmpty();
        String outcome = aside.isEmpty() && !overwrite ? "the folder is as it was"
                : stranded ? "the old content could not all be put back: " + left.size() + " entries are in "
                        + previous : "the old content is back as it was";
        return new StorageException(ErrorCode.WRITE_FAILED, output.toString(), what + " (" + describe(cause) + "); "
                + outcome, cause);
    }

    /**
     * Leaves nothing of the job: the staging folder deleted, the files a failed publish renamed already, and the
     * output folder too if the job created it. Old content that a failed overwrite could not put back stays, in
     * {@link #PREVIOUS}.
     */
    @Override
    public void abort() throws IOException {
        if (stranded) {
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
                for (Path p : entries) {
                    if (!p.getFileName().toString().equals(PREVIOUS)) {
                        deleteTree(p, moves);
                    }
                }
            }
        } else {
            deleteTree(folder, moves);
        }
        for (Path p : published) {
            moves.delete(p);
        }
        published.clear();
        if (createdOutput) {
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(output)) {
                if (!entries.iterator().hasNext()) {
                    Files.deleteIfExists(output);
                }
            }
        }
    }

    /** @return {@code e} if it carries a code, else a coded failure saying what was being done */
    static IOException coded(IOException e, String where, String doing) {
        return e instanceof ErrorCoded ? e : new StorageException(ErrorCode.of(e), where, doing + ": "
                + describe(e), e);
    }

    private static String describe(IOException e) {
        return e instanceof SafetensorsException s ? s.detail() + " [" + s.code() + "]"
                : e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    /** Deletes a file or a folder and everything under it; a missing one is no failure. */
    static void deleteTree(Path root) throws IOException {
        deleteTree(root, FileMoves.FILE_SYSTEM);
    }

    private static void deleteTree(Path root, FileMoves moves) throws IOException {
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
            moves.delete(all.get(i));
        }
    }
}
