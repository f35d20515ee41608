package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reads never write: a folder holding a commit journal (left by a writer killed after its commit point, or planted in
 * a tarball or a clone) is refused with {@link ErrorCode#INTERRUPTED_COMMIT} and every file in it stays as it was;
 * an entry named like a journal that is not a regular file (a FIFO, a folder, a link to {@code /dev/zero}) is no
 * journal, and neither blocks nor breaks the read of a valid checkpoint. The kill itself is {@code CommitKillTest}'s;
 * this is the reader's side, laid out by hand.
 */
class InterruptedCommitReadTest {
    /** Long enough for any read here; a read that blocks on a FIFO or reads /dev/zero never ends by itself. */
    private static final Duration BOUND = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private static float first(ByteBuffer bytes) {
        return bytes.order(ByteOrder.LITTLE_ENDIAN).getFloat(0);
    }

    /** @return two shards, {a} and {b}, holding {@code value}, and their index */
    private static Path twoShards(Path folder, float value) throws IOException {
        ShardedWriter.create(4).tensor("a", new long[] {1}, new float[] {value})
                .tensor("b", new long[] {1}, new float[] {value}).writeTo(folder);
        return folder.resolve("model.safetensors.index.json");
    }

    /** @return every regular file and link under the folder with its bytes (a link: its target), by name */
    static Map<String, String> snapshot(Path folder) throws IOException {
        Map<String, String> all = new TreeMap<>();
        try (Stream<Path> files = Files.list(folder)) {
            for (Path p : files.toList()) {
                String name = p.getFileName().toString();
                if (Files.isSymbolicLink(p)) {
                    all.put(name, "link to " + Files.readSymbolicLink(p));
                } else if (Files.isRegularFile(p)) {
                    all.put(name, java.util.HexFormat.of().formatHex(Files.readAllBytes(p)));
                } else {
                    all.put(name, Files.isDirectory(p) ? "folder" : "other");
                }
            }
        }
        return all;
    }

    private void assertRefusedAndUnchanged(Path index) throws IOException {
        Map<String, String> before = snapshot(dir);
        StorageException open = assertThrows(StorageException.class, () -> Checkpoint.open(index));
        assertEquals(ErrorCode.INTERRUPTED_COMMIT, open.code());
        assertEquals(dir.toString(), open.source(), "the folder is named");
        assertTrue(open.getMessage().contains("safetensors recover"), "says how to finish it: " + open.getMessage());
        StorageException folder = assertThrows(StorageException.class,
                () -> CheckpointFiles.locate(dir + "/"));
        assertEquals(ErrorCode.INTERRUPTED_COMMIT, folder.code(), "the folder as a source too");
        List<CheckVerdict> check = CheckServiceTest.all(SafetensorsClient.defaultClient(), index.toString());
        assertEquals(1, check.size(), "no file is read: the checkpoint's verdict alone");
        assertEquals(ErrorCode.INTERRUPTED_COMMIT, ErrorCode.of(check.get(0).failure().orElseThrow()),
                "and validation");
        assertEquals(before, snapshot(dir), "the read changed nothing");
    }

    @Test
    void aFolderMidCommitIsRefusedAndLeftAsItIs() throws Exception {
        // old layout: {a}, {b} holding 1s; the new one, staged elsewhere first, the same names holding 2s
        Path oldIndex = twoShards(dir, 1);
        Path staging = Files.createDirectory(dir.resolve("staging"));
        twoShards(staging, 2);
        StringBuilder journal = new StringBuilder("safetensors-commit 1\n");
        for (String name : new String[] {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors",
                "model.safetensors.index.json"}) {
            String temp = "." + name + ".42.tmp";
            Files.move(staging.resolve(name), dir.resolve(temp));
            journal.append("rename\t").append(temp).append('\t').append(name).append('\n');
        }
        journal.append("end\n");
        // killed after the first rename: shard 1 is new (a = 2), shard 2 old (b = 1)
        Files.move(dir.resolve(".model-00001-of-00002.safetensors.42.tmp"),
                dir.resolve("model-00001-of-00002.safetensors"), StandardCopyOption.REPLACE_EXISTING);
        Files.writeString(dir.resolve(".model" + CommitJournal.SUFFIX), journal, StandardCharsets.UTF_8);

        assertRefusedAndUnchanged(oldIndex);
    }

    @Test
    void aPlantedJournalDeletesAndRenamesNothingWhenTheFolderIsRead() throws Exception {
        Path index = twoShards(dir, 1);
        Files.writeString(dir.resolve("thesis.txt"), "four years of work");
        Files.writeString(dir.resolve("notes.txt"), "not a shard");
        Files.writeString(dir.resolve(".x" + CommitJournal.SUFFIX), "safetensors-commit 1\ndelete\tthesis.txt\n"
                + "rename\tnotes.txt\tmodel-00001-of-00002.safetensors\nend\n");

        assertRefusedAndUnchanged(index);
        assertEquals("four years of work", Files.readString(dir.resolve("thesis.txt")));
        assertEquals("not a shard", Files.readString(dir.resolve("notes.txt")));
    }

    /** Reads the valid checkpoint with an entry named like a journal beside it, which must not count. */
    private void readsWhole(Path index) throws Exception {
        Map<String, String> before = snapshot(dir);
        assertTimeoutPreemptively(BOUND, () -> {
            try (Checkpoint c = Checkpoint.open(index)) {
                assertEquals(1f, first(c.readBytes("a")));
                assertEquals(1f, first(c.readBytes("b")));
            }
            assertTrue(CheckServiceTest.all(SafetensorsClient.defaultClient(), index.toString()).stream()
                    .allMatch(CheckVerdict::valid), "and it is valid");
            assertEquals(dir + "/", CheckpointFiles.locate(dir + "/").name(), "the folder as a source too");
        }, "a read of the checkpoint ends");
        assertEquals(before, snapshot(dir), "the read changed nothing");
    }

    @Test
    void aFifoNamedLikeAJournalNeitherBlocksNorBreaksARead() throws Exception {
        Path index = twoShards(dir, 1);
        Fifo.create(dir.resolve(".model" + CommitJournal.SUFFIX));
        readsWhole(index);
    }

    @Test
    void aFolderNamedLikeAJournalDoesNotBreakARead() throws Exception {
        Path index = twoShards(dir, 1);
        Files.createDirectory(dir.resolve(".model" + CommitJournal.SUFFIX));
        readsWhole(index);
    }

    @Test
    void aLinkToDevZeroNamedLikeAJournalIsNeverRead() throws Exception {
        Path zero = Path.of("/dev/zero");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(zero), "SKIPPED: no /dev/zero on this system");
        Path index = twoShards(dir, 1);
        Files.createSymbolicLink(dir.resolve(".model" + CommitJournal.SUFFIX), zero);
        readsWhole(index);
    }

    @Test
    void aLinkToAJournalIsNoJournalForAReadEither() throws Exception {
        Path index = twoShards(dir, 1);
        Path elsewhere = Files.createDirectory(dir.resolve("elsewhere"));
        Path journal = Files.writeString(elsewhere.resolve("j"), "safetensors-commit 1\nend\n");
        Files.createSymbolicLink(dir.resolve(".model" + CommitJournal.SUFFIX), journal);
        readsWhole(index);
        assertArrayEquals("safetensors-commit 1\nend\n".getBytes(StandardCharsets.UTF_8), Files.readAllBytes(journal));
    }
}
