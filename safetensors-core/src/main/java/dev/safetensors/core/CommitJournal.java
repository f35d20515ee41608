package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntConsumer;

/**
 * The commit record of a write that replaces several files in one folder, and its recovery. A writer first writes
 * every new file under a temporary name ({@code .NAME.RANDOM.tmp}) and forces it and the folder to the device; then
 * it writes this journal, the list of renames to make (temporary name to final name, shards first and the index last)
 * and of files of an earlier layout to delete, and renames it into place as {@code .PREFIX.safetensors-commit}. That
 * rename is the commit point:
 * <ul>
 *   <li>before it, nothing in the folder has changed: the old checkpoint is whole, and the temporary files are
 *       deleted by the writer's failure path or by the JVM's shutdown;</li>
 *   <li>after it, the journal is rolled forward: every rename whose temporary file is still there is made (a rename
 *       already made is not made again), the files of the earlier layout are deleted, and the journal is deleted
 *       last. The writer does it at once; if it is killed halfway, {@link #recover(Path)} does it later, and every
 *       step may be repeated any number of times with the same result, so a run killed during recovery is
 *       recovered again.</li>
 * </ul>
 * So a folder holds, at every instant, the old checkpoint whole, or the new one whole once any journal in it has
 * been rolled forward. A roll-forward only renames files that were complete and forced before the commit point, so it
 * needs nothing but the folder. The shutdown hook of the JVM (SIGINT, SIGTERM, {@code System.exit}) waits for a
 * roll-forward in progress to end, so only SIGKILL or a crash ever leave a journal behind.
 *
 * <p>The journal is UTF-8 text: a first line {@code safetensors-commit 1}, then {@code rename TAB TEMP TAB NAME} and
 * {@code delete TAB NAME} lines (plain file names in the same folder; names never hold a tab or a line break), and a
 * last line {@code end}. A journal without its last line was never renamed into place whole, which the protocol
 * prevents; it is refused ({@link ErrorCode#WRITE_FAILED}) rather than guessed at.
 *
 * <p>Thread-safe: commits and recoveries in one JVM are serialized.
 */
public final class CommitJournal {
    /** The file name suffix of a journal; the name starts with a dot and the writer's prefix. */
    public static final String SUFFIX = ".safetensors-commit";
    private static final String MAGIC = "safetensors-commit 1";
    private static final Object LOCK = new Object();
    private static final Set<Path> PENDING = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private static boolean hooked;

    /**
     * A rename the commit makes.
     *
     * @param temp  the temporary file's name in the folder
     * @param name  the final name
     */
    record Rename(String temp, String name) {
    }

    private CommitJournal() {
    }

    /**
     * Rolls forward every commit journal left in {@code dir} by a writer killed during its rename phase, so the
     * folder holds the new checkpoint whole. Call it before reading a folder that a killed writer may have left;
     * {@link ShardedWriter} calls it before writing into a folder.
     *
     * @param dir a folder; a missing one has nothing to recover
     * @return the number of journals rolled forward
     * @throws IOException if a journal cannot be read or a rename fails ({@link ErrorCode#WRITE_FAILED}); the journal
     *                     then stays for the next attempt
     */
    public static int recover(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        List<Path> journals = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, ".*" + SUFFIX)) {
            files.forEach(journals::add);
        }
        int n = 0;
        for (Path journal : journals) {
            synchronized (LOCK) {
                if (Files.exists(journal, LinkOption.NOFOLLOW_LINKS)) {
                    rollForward(journal, read(journal), true, step -> { });
                    n++;
                }
            }
        }
        return n;
    }

    /**
     * Commits staged files: writes the journal, renames it into place (the commit point) and rolls it forward.
     *
     * @param dir     the folder
     * @param prefix  the writer's prefix, naming the journal
     * @param renames temporary to final names, in the order to make them
     * @param deletes names of an earlier layout to delete once every rename is made
     * @param sync    whether to force the journal and the folder
     * @param steps   told the number of each step reached: 0 before the commit point, 1 after it, then one per rename
     *                and one for the deletions and one for the journal's deletion
     * @param before  run under the lock just before the commit point: releases the temporary files from the shutdown
     *                cleanup, which must no longer delete them; {@code false} when that cleanup has begun (the JVM is
     *                shutting down, and some files may be gone), and then nothing is committed
     * @throws IOException if the journal cannot be written (nothing changed) or a rename fails (the journal stays)
     */
    static void commit(Path dir, String prefix, List<Rename> renames, List<String> deletes, boolean sync,
                       IntConsumer steps, java.util.function.BooleanSupplier before) throws IOException {
        StringBuilder text = new StringBuilder(MAGIC).append('\n');
        for (Rename r : renames) {
            text.append("rename\t").append(r.temp()).append('\t').append(r.name()).append('\n');
        }
        for (String d : deletes) {
            text.append("delete\t").append(d).append('\n');
        }
        text.append("end\n");
        Path journal = dir.resolve("." + prefix + SUFFIX);
        Path temp = dir.resolve("." + prefix + SUFFIX + "." + Long.toUnsignedString(
                ThreadLocalRandom.current().nextLong(), 36) + ".tmp");
        synchronized (LOCK) {
            installHook();
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer bytes = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
                while (bytes.hasRemaining()) {
                    ch.write(bytes);
                }
                if (sync) {
                    ch.force(true);
                }
            } catch (IOException e) {
                Files.deleteIfExists(temp);
                throw failed(temp, e);
            }
            steps.accept(0);
            if (!before.getAsBoolean()) {
                Files.deleteIfExists(temp);
                throw new StorageException(ErrorCode.INTERRUPTED, dir.toString(), "the JVM is shutting down before"
                        + " the commit: nothing was replaced");
            }
            try {
                move(temp, journal);
                PENDING.add(journal);
            } catch (IOException e) {
                Files.deleteIfExists(temp);
                throw failed(journal, e);
            }
            if (sync) {
                syncFolder(dir);
            }
            steps.accept(1);
            rollForward(journal, new Entries(renames, deletes), sync, steps);
        }
    }

    /** The content of a journal. */
    private record Entries(List<Rename> renames, List<String> deletes) {
    }

    private static Entries read(Path journal) throws IOException {
        List<String> lines = Files.readAllLines(journal, StandardCharsets.UTF_8);
        if (lines.isEmpty() || !lines.get(0).equals(MAGIC) || !lines.get(lines.size() - 1).equals("end")) {
            throw new StorageException(ErrorCode.WRITE_FAILED, journal.toString(), "is not a whole commit journal:"
                    + " check the folder's files by hand, then delete it");
        }
        List<Rename> renames = new ArrayList<>();
        List<String> deletes = new ArrayList<>();
        for (String line : lines.subList(1, lines.size() - 1)) {
            String[] f = line.split("\t", -1);
            if (f.length == 3 && f[0].equals("rename") && plain(f[1]) && plain(f[2])) {
                renames.add(new Rename(f[1], f[2]));
            } else if (f.length == 2 && f[0].equals("delete") && plain(f[1])) {
                deletes.add(f[1]);
            } else {
                throw new StorageException(ErrorCode.WRITE_FAILED, journal.toString(), "has a line that is not a"
                        + " rename or a deletion of a file in its folder");
            }
        }
        return new Entries(renames, deletes);
    }

    private static boolean plain(String name) {
        return !name.isEmpty() && !name.equals(".") && !name.equals("..") && name.indexOf('/') < 0
                && name.indexOf('\\') < 0 && name.indexOf(0) < 0;
    }

    private static void rollForward(Path journal, Entries entries, boolean sync, IntConsumer steps)
            throws IOException {
        Path dir = journal.getParent();
        int step = 2;
        for (Rename r : entries.renames()) {
            Path temp = dir.resolve(r.temp());
            if (Files.exists(temp, LinkOption.NOFOLLOW_LINKS)) {
                try {
                    move(temp, dir.resolve(r.name()));
                } catch (IOException e) {
                    throw failed(dir.resolve(r.name()), e);
                }
            }
            steps.accept(step++);
        }
        if (sync) {
            syncFolder(dir);
        }
        for (String d : entries.deletes()) {
            try {
                Files.deleteIfExists(dir.resolve(d));
            } catch (IOException e) {
                throw failed(dir.resolve(d), e);
            }
        }
        steps.accept(step++);
        Files.deleteIfExists(journal);
        if (sync) {
            syncFolder(dir);
        }
        PENDING.remove(journal);
        steps.accept(step);
    }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /**
     * Forces a folder's entries (creations, renames, deletions) to the device, where the platform allows opening a
     * folder (Linux, macOS); elsewhere a no-op.
     *
     * @param dir the folder
     */
    static void syncFolder(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // Windows cannot open a folder; its renames are journaled by NTFS
        }
    }

    private static StorageException failed(Path path, IOException e) {
        if (e instanceof StorageException s && s.code() == ErrorCode.WRITE_FAILED) {
            return s;
        }
        String reason = e instanceof java.nio.file.FileSystemException f && f.getReason() != null ? f.getReason()
                : e instanceof NoSuchFileException ? "its folder vanished" : String.valueOf(e.getMessage());
        return new StorageException(ErrorCode.WRITE_FAILED, path.toString(), "cannot be written: " + reason, e);
    }

    private static void installHook() {
        if (hooked) {
            return;
        }
        try {
            // a roll-forward in progress holds LOCK; the hook waits for it, then finishes any left (an exception
            // thrown halfway), so SIGINT or SIGTERM never leave a mix behind
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                synchronized (LOCK) {
                    for (Path j : List.copyOf(PENDING)) {
                        try {
                            rollForward(j, read(j), true, step -> { });
                        } catch (IOException e) {
                            // the journal stays; the next run or recover() finishes it
                        }
                    }
                }
            }, "safetensors-commit-recovery"));
            hooked = true;
        } catch (IllegalStateException e) {
            // shutting down already: the journal stays for recover()
        }
    }
}
