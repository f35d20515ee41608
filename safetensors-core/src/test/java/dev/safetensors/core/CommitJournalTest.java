package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the journal's own side promises: recovery reports what it did, a writer never commits a journal that recovery
 * would refuse to read, and the names a recovery accepts are exactly the ones the writer formats.
 */
class CommitJournalTest {
    @TempDir
    Path dir;

    @Test
    void recoveryReportsTheRenamesAndDeletionsItMade() throws Exception {
        CommitScenario.SINGLE_TO_SHARDED.writer(false).writeTo(dir);
        List<String> names = CommitScenario.SINGLE_TO_SHARDED.writer(true).fileNames();
        StringBuilder journal = new StringBuilder("safetensors-commit 1\n");
        for (String name : names) {
            String temp = AtomicFile.tempName(name);
            Files.writeString(dir.resolve(temp), name);
            journal.append("rename\t").append(temp).append('\t').append(name).append('\n');
        }
        Files.move(dir.resolve(journal.toString().split("\n")[1].split("\t")[1]), dir.resolve(names.get(0)));
        Path j = Files.writeString(dir.resolve(".model" + CommitJournal.SUFFIX), journal
                .append("delete\tmodel.safetensors\n").append("end\n"));

        List<CommitJournal.Recovered> done = CommitJournal.recover(dir);
        assertEquals(1, done.size());
        assertEquals(j, done.get(0).journal());
        assertEquals(names.subList(1, names.size()), done.get(0).renamed(), "the first rename was made before");
        assertEquals(List.of("model.safetensors"), done.get(0).deleted());
        assertEquals(List.of(), CommitJournal.recover(dir), "nothing is left to recover");
    }

    @Test
    void aJournalTooLargeForRecoveryIsNeverCommitted() {
        String prefix = "m".repeat(ShardedWriter.MAX_PREFIX_BYTES);
        List<String> deletes = new ArrayList<>();
        for (int i = 1; deletes.size() * 200L <= CommitJournal.MAX_JOURNAL_BYTES; i++) {
            deletes.add(ShardedWriter.shardName(prefix, i, 99_999));
        }
        boolean[] released = {false};
        StorageException e = assertThrows(StorageException.class, () -> CommitJournal.commit(dir, prefix,
                List.of(new CommitJournal.Rename(AtomicFile.tempName(prefix + ".safetensors"), prefix
                        + ".safetensors")), deletes, false, step -> { }, () -> released[0] = true));
        assertEquals(ErrorCode.WRITE_FAILED, e.code());
        assertFalse(released[0], "stopped before the commit point");
        assertEquals(0, dir.toFile().list().length, "no journal, and no temporary journal");
    }

    @Test
    void theNamesRecoveryAcceptsAreTheOnesTheWriterFormats() {
        for (String name : ShardedWriter.layout("model", 3)) {
            assertTrue(ShardedWriter.isCheckpointName("model", name), name);
            assertTrue(AtomicFile.isTempName(AtomicFile.tempName(name), name), name);
        }
        assertTrue(ShardedWriter.isCheckpointName("model", "model.safetensors"));
        assertFalse(ShardedWriter.isCheckpointName("model", "model-0001-of-00002.safetensors"));
        assertFalse(ShardedWriter.isCheckpointName("model", "model-0000a-of-00002.safetensors"));
        assertFalse(ShardedWriter.isCheckpointName("model", "other-00001-of-00002.safetensors"));
        assertFalse(AtomicFile.isTempName(".model.safetensors.tmp", "model.safetensors"));
        assertFalse(AtomicFile.isTempName(".model.safetensors.3w5e11264sgsg.tmp", "model.safetensors"),
                "past 2^64");
        assertFalse(AtomicFile.isTempName(".model.safetensors.A1.tmp", "model.safetensors"), "upper case");
    }
}
