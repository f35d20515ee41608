package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Only a journal a writer made is rolled forward: {@link CommitJournal#recover(Path)} and the next
 * {@link ShardedWriter} write refuse any other ({@link ErrorCode#WRITE_FAILED}) and change nothing in the folder,
 * while a genuine interrupted commit, laid out with the writer's own names, is still finished by both.
 */
class JournalAuthenticationTest {
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final String S1 = "model-00001-of-00002.safetensors";
    private static final String S2 = "model-00002-of-00002.safetensors";
    private static final String INDEX = "model.safetensors.index.json";

    @TempDir
    Path root;

    private static String journal(String... lines) {
        return "safetensors-commit 1\n" + String.join("\n", lines) + (lines.length == 0 ? "" : "\n") + "end\n";
    }

    /**
     * Lays out a commit killed after {@code made} renames, with the writer's names: the old checkpoint written in
     * {@code dir}, the new one staged under {@code .NAME.RANDOM.tmp} temporary names, the journal in place.
     *
     * @return the journal
     */
    private Path midCommit(Path dir, CommitScenario scenario, int made) throws IOException {
        scenario.writer(false).writeTo(dir);
        Path staging = Files.createDirectories(root.resolve("staging-" + dir.getFileName()));
        ShardedWriter next = scenario.writer(true);
        next.writeTo(staging);
        List<String> oldNames = scenario.writer(false).fileNames();
        List<String> names = next.fileNames();
        List<String> lines = new ArrayList<>();
        for (String name : names) {
            String temp = "." + name + ".k3j2.tmp";
            Files.move(staging.resolve(name), dir.resolve(temp));
            lines.add("rename\t" + temp + "\t" + name);
        }
        for (String old : oldNames) {
            if (!names.contains(old)) {
                lines.add("delete\t" + old);
            }
        }
        for (int i = 0; i < made; i++) {
            Files.move(dir.resolve("." + names.get(i) + ".k3j2.tmp"), dir.resolve(names.get(i)),
                    StandardCopyOption.REPLACE_EXISTING);
        }
        return Files.writeString(dir.resolve(".model" + CommitJournal.SUFFIX), journal(lines.toArray(new String[0])));
    }

    private static void assertWhole(boolean newVersion, Path dir) throws IOException {
        Map<String, byte[]> loaded = CommitScenario.load(dir);
        Map<String, byte[]> expected = CommitScenario.tensors(newVersion);
        assertEquals(expected.keySet(), loaded.keySet());
        expected.forEach((name, bytes) -> assertTrue(java.util.Arrays.equals(bytes, loaded.get(name)),
                "every byte of " + name));
    }

    private static List<String> names(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** Recovery and a write are both refused, and leave every entry of the folder as it was. */
    private static void assertRefusedAndUnchanged(Path dir) throws Exception {
        Map<String, String> before = InterruptedCommitReadTest.snapshot(dir);
        assertTimeoutPreemptively(BOUND, () -> {
            StorageException recover = assertThrows(StorageException.class, () -> CommitJournal.recover(dir));
            assertEquals(ErrorCode.WRITE_FAILED, recover.code(), recover.getMessage());
            assertTrue(recover.getMessage().contains("nothing in the folder was changed"), recover.getMessage());
            StorageException write = assertThrows(StorageException.class,
                    () -> CommitScenario.IN_PLACE.writer(true).writeTo(dir));
            assertEquals(ErrorCode.WRITE_FAILED, write.code(), write.getMessage());
        }, "recovery ends");
        assertEquals(before, InterruptedCommitReadTest.snapshot(dir), "nothing in the folder changed");
    }

    @Test
    void theIssuesPlantedJournalIsRefusedByRecoveryAndByTheWriter() throws Exception {
        Path dir = Files.createDirectory(root.resolve("planted"));
        CommitScenario.IN_PLACE.writer(false).writeTo(dir);
        Files.writeString(dir.resolve("thesis.txt"), "four years of work");
        Files.writeString(dir.resolve("notes.txt"), "not a shard");
        Files.writeString(dir.resolve(".x" + CommitJournal.SUFFIX), journal("delete\tthesis.txt",
                "rename\tnotes.txt\t" + S1));
        assertRefusedAndUnchanged(dir);
        assertEquals("four years of work", Files.readString(dir.resolve("thesis.txt")));
        assertEquals("not a shard", Files.readString(dir.resolve("notes.txt")));
    }

    @Test
    void aGenuineInterruptedCommitIsFinishedByRecover() throws Exception {
        Path dir = Files.createDirectory(root.resolve("in-place"));
        Path journal = midCommit(dir, CommitScenario.IN_PLACE, 1);
        CommitJournal.recover(dir);
        assertFalse(Files.exists(journal), "the journal is rolled forward");
        assertWhole(true, dir);
        assertEquals(List.of(S1, S2, INDEX), names(dir), "the new files, no temporary file");

        Path layout = Files.createDirectory(root.resolve("layout"));
        midCommit(layout, CommitScenario.SINGLE_TO_SHARDED, 2);
        CommitJournal.recover(layout);
        assertWhole(true, layout);
        assertEquals(CommitScenario.SINGLE_TO_SHARDED.writer(true).fileNames().stream().sorted().toList(),
                names(layout), "the earlier single file is deleted once the shards are in place");
    }

    @Test
    void aGenuineInterruptedCommitIsFinishedByTheNextWrite() throws Exception {
        Path dir = Files.createDirectory(root.resolve("next"));
        Path journal = midCommit(dir, CommitScenario.SHARDED_TO_SINGLE, 0);
        // without replacing, the write would be refused by the files of the other layout, had it not recovered
        ShardedWriter.create(Long.MAX_VALUE).prefix("other").tensor("z", new long[] {1}, new float[] {5})
                .writeTo(dir);
        assertFalse(Files.exists(journal), "the write rolled the journal forward first");
        assertWhole(true, dir);
        assertEquals(List.of("model.safetensors", "other.safetensors"), names(dir));
    }

    @Test
    void aTemporaryFileThatIsALinkIsNeverRenamedIntoPlace() throws Exception {
        Path dir = Files.createDirectory(root.resolve("link"));
        midCommit(dir, CommitScenario.IN_PLACE, 0);
        Path secret = Files.writeString(root.resolve("secret.txt"), "outside the folder");
        Path temp = dir.resolve("." + S2 + ".k3j2.tmp");
        Files.delete(temp);
        Files.createSymbolicLink(temp, secret);
        assertRefusedAndUnchanged(dir);
        assertEquals("outside the folder", Files.readString(secret));
    }

    /** A valid checkpoint with an entry named like a journal that is not a regular file: refused, never opened. */
    private Path beside(String name) throws IOException {
        Path dir = Files.createDirectory(root.resolve(name));
        CommitScenario.IN_PLACE.writer(false).writeTo(dir);
        return dir.resolve(".model" + CommitJournal.SUFFIX);
    }

    @Test
    void aFifoNamedLikeAJournalIsRefusedWithoutBeingOpened() throws Exception {
        Path fifo = beside("fifo");
        Fifo.create(fifo);
        assertRefusedAndUnchanged(fifo.getParent());
    }

    @Test
    void aFolderNamedLikeAJournalIsRefused() throws Exception {
        Path folder = beside("folder");
        Files.createDirectory(folder);
        assertRefusedAndUnchanged(folder.getParent());
    }

    @Test
    void aLinkNamedLikeAJournalIsRefusedWithoutBeingFollowed() throws Exception {
        Path zero = Path.of("/dev/zero");
        assumeTrue(Files.exists(zero), "SKIPPED: no /dev/zero on this system");
        Path toZero = beside("zero");
        Files.createSymbolicLink(toZero, zero);
        assertRefusedAndUnchanged(toZero.getParent());

        // a link to a journal a writer could have made is refused too: a writer never makes a link
        Path toJournal = beside("to-journal");
        Path elsewhere = Files.writeString(root.resolve("elsewhere"), journal());
        Files.createSymbolicLink(toJournal, elsewhere);
        assertRefusedAndUnchanged(toJournal.getParent());
        assertTrue(Files.exists(elsewhere), "the link's target is untouched");
    }

    /** Journals that break one rule each, in a folder holding the old checkpoint and the writer's staged files. */
    private static Map<String, String> hostile() {
        String t1 = "." + S1 + ".k3j2.tmp";
        String t2 = "." + S2 + ".k3j2.tmp";
        String ti = "." + INDEX + ".k3j2.tmp";
        String rest = "rename\t" + t2 + "\t" + S2 + "\nrename\t" + ti + "\t" + INDEX;
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("a temporary name without its random part", journal("rename\t." + S1 + ".tmp\t" + S1, rest));
        cases.put("another file's temporary name", journal("rename\t" + t2 + "\t" + S1, rest));
        cases.put("a random part that is not the writer's spelling", journal("rename\t." + S1 + ".0k3j2.tmp\t" + S1,
                rest));
        cases.put("a plain file renamed", journal("rename\tnotes.txt\t" + S1, rest));
        cases.put("a path out of the folder", journal("rename\t../outside/" + t1 + "\t" + S1, rest));
        cases.put("a final name no writer gives", journal("rename\t.notes.txt.k3j2.tmp\tnotes.txt"));
        cases.put("part of a layout", journal("rename\t" + t1 + "\t" + S1));
        cases.put("the index before the shards", journal("rename\t" + ti + "\t" + INDEX, "rename\t" + t1 + "\t" + S1,
                "rename\t" + t2 + "\t" + S2));
        cases.put("a user's file deleted", journal("rename\t" + t1 + "\t" + S1, rest, "delete\tthesis.txt"));
        cases.put("a file out of the folder deleted", journal("rename\t" + t1 + "\t" + S1, rest,
                "delete\t../thesis.txt"));
        cases.put("a new file deleted", journal("rename\t" + t1 + "\t" + S1, rest, "delete\t" + S1));
        cases.put("a file deleted twice", journal("rename\t" + t1 + "\t" + S1, rest, "delete\tmodel.safetensors",
                "delete\tmodel.safetensors"));
        cases.put("a line that is neither", journal("rename\t" + t1 + "\t" + S1, rest, "chmod\t777\t" + S1));
        cases.put("no last line", "safetensors-commit 1\nrename\t" + t1 + "\t" + S1 + "\n" + rest + "\n");
        cases.put("no line feed after the last line", journal("rename\t" + t1 + "\t" + S1, rest).strip());
        cases.put("another version", journal("rename\t" + t1 + "\t" + S1, rest).replace("commit 1", "commit 2"));
        return cases;
    }

    @Test
    void aJournalWithANameNoWriterGivesIsRefusedAndChangesNothing() throws Exception {
        int n = 0;
        for (Map.Entry<String, String> c : hostile().entrySet()) {
            Path dir = Files.createDirectory(root.resolve("hostile-" + n++));
            midCommit(dir, CommitScenario.IN_PLACE, 0);
            Files.writeString(dir.resolve("thesis.txt"), "four years of work");
            Files.writeString(dir.resolve("notes.txt"), "not a shard");
            Files.writeString(dir.resolve(".model" + CommitJournal.SUFFIX), c.getValue());
            try {
                assertRefusedAndUnchanged(dir);
            } catch (AssertionError e) {
                throw new AssertionError(c.getKey() + ": " + e.getMessage(), e);
            }
        }
    }

    @Test
    void aJournalThatDoesNotDescribeTheFolderIsRefused() throws Exception {
        // neither the temporary files nor the new files are there: the renames were never made
        Path dir = Files.createDirectory(root.resolve("absent"));
        Files.writeString(dir.resolve("model.safetensors"), "the user's own");
        Files.writeString(dir.resolve(".model" + CommitJournal.SUFFIX), journal("rename\t." + S1 + ".k3j2.tmp\t" + S1,
                "rename\t." + S2 + ".k3j2.tmp\t" + S2, "rename\t." + INDEX + ".k3j2.tmp\t" + INDEX,
                "delete\tmodel.safetensors"));
        assertRefusedAndUnchanged(dir);

        // a journal named for a prefix its names do not have, or for none
        for (String name : new String[] {".other" + CommitJournal.SUFFIX, "." + CommitJournal.SUFFIX}) {
            Path other = Files.createDirectory(root.resolve("prefix" + name.length()));
            midCommit(other, CommitScenario.IN_PLACE, 0);
            Files.move(other.resolve(".model" + CommitJournal.SUFFIX), other.resolve(name));
            assertRefusedAndUnchanged(other);
        }
    }

    @Test
    void aJournalThatIsNotUtf8OrTooLargeIsRefused() throws Exception {
        Path dir = Files.createDirectory(root.resolve("utf8"));
        Path journal = midCommit(dir, CommitScenario.IN_PLACE, 0);
        byte[] text = Files.readAllBytes(journal);
        byte[] bad = java.util.Arrays.copyOf(text, text.length + 2);
        System.arraycopy(text, 0, bad, 2, text.length);
        bad[0] = (byte) 0xC0;
        bad[1] = (byte) 0x80;
        Files.write(journal, bad);
        assertRefusedAndUnchanged(dir);

        Path large = Files.createDirectory(root.resolve("large"));
        Path big = midCommit(large, CommitScenario.IN_PLACE, 0);
        try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(16L * 1024 * 1024 + 1);       // sparse: one byte past the bound, costs no disk
        }
        assertRefusedAndUnchanged(large);
    }
}
