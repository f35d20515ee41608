package dev.safetensors.core;

import dev.safetensors.Location;
import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import dev.safetensors.spi.SourceNames;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
 * <h2>Reads never write</h2>
 * A journal found in a folder may come from anywhere (a tarball, a clone, an rsync), so reading a folder never acts
 * on one: {@link #requireFinished(Path)}, which every read of a local checkpoint calls, looks at the folder's entries
 * only (their type, never following a link; no journal is opened) and refuses a folder holding a regular file named
 * like a journal with {@link ErrorCode#INTERRUPTED_COMMIT}, naming the folder and saying how to finish it. An entry of
 * that name that is not a regular file (a FIFO, a folder, a link, a device) is no journal a writer makes, and reads
 * ignore it.
 *
 * <h2>Only a writer recovers, and only its own journal</h2>
 * {@link #recover(Path)} runs only where something is to be written: before {@link ShardedWriter} writes into a
 * folder, and in {@code safetensors recover}. It rolls a journal forward only once it has authenticated it as one a
 * writer made, all before it changes anything:
 * <ol>
 *   <li>the journal is a regular file (checked without following a link, opened with {@code NOFOLLOW_LINKS}, so a
 *       FIFO, a device or a link is never opened) of at most {@link #MAX_JOURNAL_BYTES} bytes, strict UTF-8, whole
 *       (the first and the last line below);</li>
 *   <li>its name is {@code .PREFIX.safetensors-commit} for a prefix {@link ShardedWriter#prefix(String)} takes;</li>
 *   <li>its renames make exactly the files of one checkpoint with that prefix, in the writer's order: the single
 *       {@code PREFIX.safetensors}, or the shards {@code PREFIX-00001-of-N.safetensors} to {@code N} and then
 *       {@code PREFIX.safetensors.index.json}; and each rename's temporary name is the writer's for that final
 *       name ({@code .NAME.RANDOM.tmp});</li>
 *   <li>each deleted name is a file of another layout with that prefix (the single file, the index or a shard),
 *       never one of the new files, and named once;</li>
 *   <li>the folder matches it: each temporary file still there is a regular file (never a link, which a rename would
 *       publish under a final name), and each one gone has its final name as a regular file (the rename was made);
 *       no deleted name is a folder.</li>
 * </ol>
 * Anything else is refused with {@link ErrorCode#WRITE_FAILED} (the writer cannot write there; the folder needs a
 * look by hand) and nothing in the folder is changed: a planted journal can neither delete nor rename a file the
 * writer would not have deleted or renamed itself, and only where the new checkpoint's files are all present.
 *
 * <p>The journal is UTF-8 text: a first line {@code safetensors-commit 1}, then {@code rename TAB TEMP TAB NAME} and
 * {@code delete TAB NAME} lines, and a last line {@code end}, each line ending with a line feed. A journal without
 * its last line was never renamed into place whole, which the protocol prevents; it is refused rather than guessed
 * at.
 *
 * <p>Thread-safe: commits and recoveries in one JVM are serialized.
 */
public final class CommitJournal {
    /** The file name suffix of a journal; the name starts with a dot and the writer's prefix. */
    public static final String SUFFIX = ".safetensors-commit";
    /**
     * The largest journal {@link #recover(Path)} reads, and a writer writes: 16 MiB, far above the 10,001 renames of
     * the largest checkpoint an index may describe.
     */
    public static final int MAX_JOURNAL_BYTES = 16 * 1024 * 1024;
    private static final String MAGIC = "safetensors-commit 1";
    private static final String END = "end";
    private static final Object LOCK = new Object();
    /** The journals this JVM committed and has not rolled forward yet, with what they hold (never read back). */
    private static final Map<Path, Entries> PENDING = new ConcurrentHashMap<>();
    private static boolean hooked;

    /**
     * A rename the commit makes.
     *
     * @param temp  the temporary file's name in the folder
     * @param name  the final name
     */
    record Rename(String temp, String name) {
    }

    /**
     * What a roll-forward did.
     *
     * @param journal the journal, now deleted
     * @param renamed the final names whose temporary file was renamed into place now (a rename made before a kill is
     *                not listed)
     * @param deleted the files of an earlier layout deleted now
     */
    public record Recovered(Path journal, List<String> renamed, List<String> deleted) {
        /**
         * @param journal the journal, now deleted
         * @param renamed the final names renamed into place now
         * @param deleted the files deleted now
         */
        public Recovered {
            renamed = List.copyOf(renamed);
            deleted = List.copyOf(deleted);
        }
    }

    private CommitJournal() {
    }

    /**
     * The check of a read: refuses a folder in which a writer began a commit and did not finish it, since its files
     * may be a mix of two checkpoints. Only the folder's entries are looked at (without following links); nothing is
     * opened, renamed or deleted. Only a regular file named {@code .*.safetensors-commit} counts; another entry of
     * that name (a FIFO, a folder, a link) is ignored.
     *
     * @param dir a folder; a missing one, or a path that is not a folder, holds no journal
     * @throws IOException a {@link StorageException} with {@link ErrorCode#INTERRUPTED_COMMIT} naming the folder and
     *                     the first journal, or the failure to list the folder
     */
    public static void requireFinished(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        for (Path entry : named(dir)) {
            BasicFileAttributes a = attributes(entry);
            if (a != null && a.isRegularFile()) {
                throw new StorageException(ErrorCode.INTERRUPTED_COMMIT, dir.toString(), "holds '"
                        + SourceNames.clip(entry.getFileName().toString()) + "', the journal of a commit a writer"
                        + " began and did not finish: its files may be a mix of two checkpoints, so nothing was read;"
                        + " finish it with 'safetensors recover " + dir + "' (or the next write into the folder)");
            }
        }
    }

    /**
     * Rolls forward every commit journal left in {@code dir} by a writer killed during its rename phase, so the
     * folder holds the new checkpoint whole; for a writing command only (reads call {@link #requireFinished(Path)}).
     * {@link ShardedWriter} calls it before writing into a folder. Every journal is authenticated (see the class
     * comment) before anything is changed.
     *
     * @param dir a folder; a missing one has nothing to recover
     * @return what each journal's roll-forward did, in the order of the journals' names; empty if none was left
     * @throws IOException a {@link StorageException} with {@link ErrorCode#WRITE_FAILED}: a journal or an entry named
     *                     like one that cannot be authenticated (nothing was changed), or a rename or deletion that
     *                     failed (the journal then stays for the next attempt)
     */
    public static List<Recovered> recover(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        synchronized (LOCK) {
            Map<Path, Entries> journals = new LinkedHashMap<>();
            for (Path journal : named(dir)) {
                journals.put(journal, authenticate(journal));
            }
            List<Recovered> done = new ArrayList<>();
            for (Map.Entry<Path, Entries> j : journals.entrySet()) {
                done.add(rollForward(j.getKey(), j.getValue(), true, step -> { }));
            }
            return done;
        }
    }

    /** @return the entries of {@code dir} named like a journal, of any type, by name */
    private static List<Path> named(Path dir) throws IOException {
        List<Path> entries = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, ".*" + SUFFIX)) {
            files.forEach(entries::add);
        }
        entries.sort(null);
        return entries;
    }

    /** @return the entry's own attributes (a link's, not its target's), or {@code null} if there is none */
    private static BasicFileAttributes attributes(Path entry) throws IOException {
        try {
            return Files.readAttributes(entry, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null;
        }
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
        text.append(END).append('\n');
        Path journal = dir.resolve("." + prefix + SUFFIX);
        byte[] content = text.toString().getBytes(StandardCharsets.UTF_8);
        if (content.length > MAX_JOURNAL_BYTES) {
            // a journal recovery would refuse to read must never become the commit point
            throw new StorageException(ErrorCode.WRITE_FAILED, journal.toString(), "would hold " + content.length
                    + " bytes, more than the " + MAX_JOURNAL_BYTES + " a recovery reads: nothing was replaced");
        }
        Path temp = dir.resolve(AtomicFile.tempName(prefix + SUFFIX));
        Entries entries = new Entries(List.copyOf(renames), List.copyOf(deletes));
        synchronized (LOCK) {
            installHook();
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer bytes = ByteBuffer.wrap(content);
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
                AtomicFile.rename(temp, journal);
                PENDING.put(journal, entries);
            } catch (IOException e) {
                Files.deleteIfExists(temp);
                throw failed(journal, e);
            }
            if (sync) {
                syncFolder(dir);
            }
            steps.accept(1);
            rollForward(journal, entries, sync, steps);
        }
    }

    /** The content of a journal. */
    private record Entries(List<Rename> renames, List<String> deletes) {
    }

    /**
     * Reads a journal and checks that a writer made it for this folder (see the class comment), changing nothing.
     *
     * @return what it holds, safe to roll forward
     */
    private static Entries authenticate(Path journal) throws IOException {
        String name = journal.getFileName().toString();
        String prefix = name.substring(1, name.length() - SUFFIX.length());
        if (!ShardedWriter.isValidPrefix(prefix)) {
            throw refused(journal, "is not named for a prefix a writer takes");
        }
        Entries entries = parse(journal, read(journal));
        List<String> finals = entries.renames().stream().map(Rename::name).toList();
        int shards = finals.size() == 1 ? 1 : finals.size() - 1;
        if (finals.isEmpty() || !finals.equals(ShardedWriter.layout(prefix, shards))) {
            throw refused(journal, "does not rename into the files of one checkpoint with the prefix '"
                    + SourceNames.clip(prefix) + "' (" + prefix + ShardedWriter.SUFFIX + ", or the shards and then "
                    + prefix + Location.INDEX_SUFFIX + "), as a writer's journal does");
        }
        for (Rename r : entries.renames()) {
            if (!AtomicFile.isTempName(r.temp(), r.name())) {
                throw refused(journal, "renames '" + SourceNames.clip(r.temp()) + "', which is not a temporary name"
                        + " a writer gives '" + SourceNames.clip(r.name()) + "'");
            }
        }
        Set<String> deleted = new HashSet<>();
        for (String d : entries.deletes()) {
            if (!ShardedWriter.isCheckpointName(prefix, d) || finals.contains(d) || !deleted.add(d)) {
                throw refused(journal, "deletes '" + SourceNames.clip(d) + "', which is not a file of another"
                        + " layout with the prefix '" + SourceNames.clip(prefix) + "'");
            }
        }
        Path dir = journal.getParent();
        for (Rename r : entries.renames()) {
            BasicFileAttributes temp = attributes(dir.resolve(r.temp()));
            if (temp != null && !temp.isRegularFile()) {
                throw refused(journal, "would rename '" + SourceNames.clip(r.temp()) + "', which is not a regular"
                        + " file (a link, a FIFO, a folder): a writer's temporary file always is");
            }
            BasicFileAttributes made = temp != null ? null : attributes(dir.resolve(r.name()));
            if (temp == null && (made == null || !made.isRegularFile())) {
                throw refused(journal, "does not describe this folder: neither '" + SourceNames.clip(r.temp())
                        + "' nor '" + SourceNames.clip(r.name()) + "' is a regular file here");
            }
        }
        for (String d : entries.deletes()) {
            BasicFileAttributes a = attributes(dir.resolve(d));
            if (a != null && a.isDirectory()) {
                throw refused(journal, "would delete '" + SourceNames.clip(d) + "', which is a folder");
            }
        }
        return entries;
    }

    /** @return the journal's text: a regular file, opened without following a link, bounded, strict UTF-8 */
    private static String read(Path journal) throws IOException {
        BasicFileAttributes a = attributes(journal);
        if (a == null) {
            throw refused(journal, "vanished while it was read");
        }
        if (!a.isRegularFile()) {
            // checked before opening: opening a FIFO blocks, a device (a link to /dev/zero) never ends
            throw refused(journal, "is not a regular file (a link, a FIFO, a folder or a device), so no journal a"
                    + " writer made");
        }
        if (a.size() > MAX_JOURNAL_BYTES) {
            throw refused(journal, "has " + a.size() + " bytes, more than the " + MAX_JOURNAL_BYTES + " of any"
                    + " journal a writer makes");
        }
        ByteBuffer bytes = ByteBuffer.allocate((int) a.size() + 1);
        try (SeekableByteChannel ch = Files.newByteChannel(journal, Set.of(StandardOpenOption.READ,
                LinkOption.NOFOLLOW_LINKS))) {
            while (bytes.hasRemaining() && ch.read(bytes) >= 0) {
                // until the end, or one byte past the size it had: it grew, and is no journal at rest
            }
        } catch (IOException e) {
            throw failed(journal, e);
        }
        if (!bytes.hasRemaining()) {
            throw refused(journal, "grew while it was read");
        }
        bytes.flip();
        try {
            CharBuffer text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(bytes);
            return text.toString();
        } catch (CharacterCodingException e) {
            throw refused(journal, "is not UTF-8 text");
        }
    }

    private static Entries parse(Path journal, String text) throws StorageException {
        String[] lines = text.endsWith("\n") ? text.substring(0, text.length() - 1).split("\n", -1) : new String[0];
        if (lines.length < 2 || !lines[0].equals(MAGIC) || !lines[lines.length - 1].equals(END)) {
            throw refused(journal, "is not a whole commit journal");
        }
        List<Rename> renames = new ArrayList<>();
        List<String> deletes = new ArrayList<>();
        for (int i = 1; i < lines.length - 1; i++) {
            String[] f = lines[i].split("\t", -1);
            if (f.length == 3 && f[0].equals("rename")) {
                renames.add(new Rename(f[1], f[2]));
            } else if (f.length == 2 && f[0].equals("delete")) {
                deletes.add(f[1]);
            } else {
                throw refused(journal, "has a line that is not a rename or a deletion");
            }
        }
        return new Entries(renames, deletes);
    }

    private static StorageException refused(Path journal, String why) {
        return new StorageException(ErrorCode.WRITE_FAILED, journal.toString(), why + ": refused, and nothing in the"
                + " folder was changed; check the folder's files by hand, then delete it");
    }

    private static Recovered rollForward(Path journal, Entries entries, boolean sync, IntConsumer steps)
            throws IOException {
        Path dir = journal.getParent();
        List<String> renamed = new ArrayList<>();
        List<String> deleted = new ArrayList<>();
        int step = 2;
        for (Rename r : entries.renames()) {
            Path temp = dir.resolve(r.temp());
            BasicFileAttributes a = attributes(temp);
            if (a != null && !a.isRegularFile()) {
                // put there since the journal was authenticated: a rename would publish it under a final name
                throw refused(journal, "would rename '" + SourceNames.clip(r.temp()) + "', which is not a regular"
                        + " file");
            }
            if (a != null) {
                try {
                    AtomicFile.rename(temp, dir.resolve(r.name()));
                } catch (IOException e) {
                    throw failed(dir.resolve(r.name()), e);
                }
                renamed.add(r.name());
            }
            steps.accept(step++);
        }
        if (sync) {
            syncFolder(dir);
        }
        for (String d : entries.deletes()) {
            try {
                if (Files.deleteIfExists(dir.resolve(d))) {
                    deleted.add(d);
                }
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
        return new Recovered(journal, renamed, deleted);
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
            // thrown halfway) from what this JVM committed, so SIGINT or SIGTERM never leave a mix behind
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                synchronized (LOCK) {
                    for (Map.Entry<Path, Entries> j : List.copyOf(PENDING.entrySet())) {
                        try {
                            rollForward(j.getKey(), j.getValue(), true, step -> { });
                        } catch (IOException e) {
                            // the journal stays; the next write or recover() finishes it
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
