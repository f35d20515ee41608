package dev.safetensors.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A folder left by a writer killed after its commit point (the journal renamed into place, some renames not made)
 * holds a mix of old and new files; opening a checkpoint there rolls the journal forward first, so what loads is the
 * new checkpoint whole. The kill itself is {@code CommitKillTest}'s; this is the reader's side, laid out by hand.
 */
class InterruptedCommitReadTest {
    @TempDir
    Path dir;

    private static float first(ByteBuffer bytes) {
        return bytes.order(ByteOrder.LITTLE_ENDIAN).getFloat(0);
    }

    @Test
    void aCheckpointOpenedMidCommitIsTheNewOneWhole() throws Exception {
        // old layout: {a}, {b} holding 1s; the new one, staged elsewhere first, the same names holding 2s
        ShardedWriter.create(4).tensor("a", new long[] {1}, new float[] {1})
                .tensor("b", new long[] {1}, new float[] {1}).writeTo(dir);
        Path oldIndex = dir.resolve("model.safetensors.index.json");
        assertTrue(Files.exists(oldIndex), "the old layout is sharded with an index");

        Path staging = Files.createDirectory(dir.resolve("staging"));
        ShardedWriter.create(4).tensor("a", new long[] {1}, new float[] {2})
                .tensor("b", new long[] {1}, new float[] {2}).writeTo(staging);
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
                dir.resolve("model-00001-of-00002.safetensors"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.writeString(dir.resolve(".model" + CommitJournal.SUFFIX), journal, StandardCharsets.UTF_8);

        try (Checkpoint c = Checkpoint.open(oldIndex)) {
            assertEquals(2f, first(c.readBytes("a")), "a from the new layout");
            assertEquals(2f, first(c.readBytes("b")), "b from the new layout");
            assertEquals(2, c.files().shards().size());
        }
        assertFalse(Files.exists(dir.resolve(".model" + CommitJournal.SUFFIX)), "the journal is rolled forward");
    }
}
