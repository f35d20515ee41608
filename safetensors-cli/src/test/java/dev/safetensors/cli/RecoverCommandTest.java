package dev.safetensors.cli;

import dev.safetensors.DType;
import dev.safetensors.core.CommitJournal;
import dev.safetensors.core.ShardedWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reads never write, and {@code recover} is where a folder a killed writer left is finished: {@code validate} of a
 * folder holding a planted journal reports {@code INTERRUPTED_COMMIT} and leaves every file as it was; {@code recover}
 * rolls a genuine journal forward and says what it did, refuses a planted one with nothing changed, in text and in
 * {@code --json}, with the exit codes of its siblings.
 */
class RecoverCommandTest {
    private static final String S1 = "model-00001-of-00002.safetensors";
    private static final String S2 = "model-00002-of-00002.safetensors";
    private static final String INDEX = "model.safetensors.index.json";

    @TempDir
    Path dir;

    private static ShardedWriter twoShards(int value) {
        return ShardedWriter.create(4).replaceExisting(true)
                .tensor("a", DType.U8, new long[] {4}, new byte[] {(byte) value, 0, 0, 0})
                .tensor("b", DType.U8, new long[] {4}, new byte[] {(byte) value, 1, 1, 1});
    }

    private static Map<String, String> snapshot(Path folder) throws IOException {
        Map<String, String> all = new TreeMap<>();
        try (var files = Files.list(folder)) {
            for (Path p : files.toList()) {
                all.put(p.getFileName().toString(), Files.isRegularFile(p)
                        ? java.util.HexFormat.of().formatHex(Files.readAllBytes(p)) : "not a file");
            }
        }
        return all;
    }

    /** The old checkpoint, and the new one staged under the writer's names and committed, shard 1 renamed. */
    private Path midCommit(Path folder) throws IOException {
        twoShards(1).writeTo(folder);
        Path staging = dir.resolve("staging");
        twoShards(2).writeTo(staging);
        StringBuilder journal = new StringBuilder("safetensors-commit 1\n");
        for (String name : List.of(S1, S2, INDEX)) {
            String temp = "." + name + ".1z.tmp";
            Files.move(staging.resolve(name), folder.resolve(temp));
            journal.append("rename\t").append(temp).append('\t').append(name).append('\n');
        }
        Files.move(folder.resolve("." + S1 + ".1z.tmp"), folder.resolve(S1), StandardCopyOption.REPLACE_EXISTING);
        return Files.writeString(folder.resolve(".model" + CommitJournal.SUFFIX), journal.append("end\n"));
    }

    @Test
    void validateOfAFolderWithAPlantedJournalReportsItAndChangesNothing() throws IOException {
        Path folder = Files.createDirectory(dir.resolve("planted"));
        twoShards(1).writeTo(folder);
        Files.writeString(folder.resolve("thesis.txt"), "four years of work");
        Files.writeString(folder.resolve("notes.txt"), "not a shard");
        Files.writeString(folder.resolve(".x" + CommitJournal.SUFFIX), "safetensors-commit 1\ndelete\tthesis.txt\n"
                + "rename\tnotes.txt\t" + S1 + "\nend\n");
        Map<String, String> before = snapshot(folder);

        Cli.Run validate = InProcess.run("validate", "--json", folder.resolve(INDEX).toString());
        assertEquals(3, validate.exit(), validate.describe());
        assertEquals("INTERRUPTED_COMMIT", validate.json().get(0).get("code").asString(), validate.describe());
        assertTrue(validate.json().get(0).get("message").asString().contains("safetensors recover"),
                validate.describe());
        Cli.Run text = InProcess.run("validate", folder.resolve(INDEX).toString());
        assertEquals(3, text.exit(), text.describe());
        assertTrue(text.stderr().contains("[INTERRUPTED_COMMIT]"), text.describe());
        assertEquals(before, snapshot(folder), "validate changed nothing");

        Cli.Run recover = InProcess.run("recover", "--json", folder.toString());
        assertEquals(3, recover.exit(), recover.describe());
        JsonNode refused = recover.summary();
        assertEquals(1, recover.jsonLines().size(), "one object: " + recover.describe());
        assertEquals("recover", refused.get("command").asString());
        assertEquals("error", refused.get("status").asString());
        assertEquals("WRITE_FAILED", refused.get("code").asString());
        assertEquals(before, snapshot(folder), "the planted journal is refused, nothing changed");
        assertEquals("four years of work", Files.readString(folder.resolve("thesis.txt")));
    }

    @Test
    void recoverFinishesAGenuineCommitAndSaysWhatItDid() throws IOException {
        Path folder = Files.createDirectory(dir.resolve("killed"));
        Path journal = midCommit(folder);
        Cli.Run refused = InProcess.run("inspect", folder.resolve(INDEX).toString());
        assertEquals(3, refused.exit(), refused.describe());
        assertTrue(refused.stderr().contains("[INTERRUPTED_COMMIT]"), refused.describe());

        Cli.Run recover = InProcess.run("recover", "--json", folder.toString());
        assertEquals(0, recover.exit(), recover.describe());
        JsonNode done = recover.json().get(0);
        assertEquals("recover", done.get("kind").asString());
        assertEquals("valid", done.get("status").asString());
        assertEquals(folder.toString(), done.get("source").asString());
        JsonNode j = done.get("journals").get(0);
        assertEquals(journal.toString(), j.get("journal").asString());
        List<String> renamed = new java.util.ArrayList<>();
        j.get("renamed").forEach(n -> renamed.add(n.asString()));
        assertEquals(List.of(S2, INDEX), renamed, "shard 1 was renamed before the kill");
        assertEquals(0, j.get("deleted").size());
        assertFalse(Files.exists(journal));
        assertEquals(List.of(INDEX, S1, S2).stream().sorted().toList(), List.copyOf(snapshot(folder).keySet()));

        Cli.Run valid = InProcess.run("validate", folder.resolve(INDEX).toString());
        assertEquals(0, valid.exit(), valid.describe());
        Cli.Run again = InProcess.run("recover", folder.toString());
        assertEquals(0, again.exit(), again.describe());
        assertTrue(again.out().startsWith("nothing to recover in " + folder), again.describe());
    }

    @Test
    void recoverInTextNamesTheRenamesAndRefusesWhatIsNoLocalFolder() throws IOException {
        Path folder = Files.createDirectory(dir.resolve("text"));
        midCommit(folder);
        Cli.Run recover = InProcess.run("recover", folder.toString());
        assertEquals(0, recover.exit(), recover.describe());
        assertTrue(recover.out().contains("renamed 2 files (" + S2 + ", " + INDEX + "), deleted nothing"),
                recover.describe());

        Cli.Run missing = InProcess.run("recover", "--json", dir.resolve("missing").toString());
        assertEquals(3, missing.exit(), missing.describe());
        assertEquals("NOT_FOUND", missing.summary().get("code").asString());
        Cli.Run file = InProcess.run("recover", folder.resolve(S1).toString());
        assertEquals(3, file.exit(), file.describe());
        assertTrue(file.stderr().contains("[INVALID_SOURCE]"), file.describe());
        Cli.Run remote = InProcess.run("recover", "s3://bucket/ckpt/");
        assertEquals(3, remote.exit(), remote.describe());
        assertTrue(remote.stderr().contains("[UNSUPPORTED_SCHEME]"), remote.describe());
        assertFalse(Files.exists(Path.of("s3:")), "no local folder named like the scheme");
        Cli.Run usage = InProcess.run("recover");
        assertEquals(2, usage.exit(), usage.describe());
        Cli.Run help = InProcess.run("--help");
        assertTrue(help.out().contains("  recover"), help.describe());
        Cli.Run own = InProcess.run("recover", "--help");
        assertEquals(0, own.exit(), own.describe());
        assertTrue(own.out().contains("DIR") && own.out().contains("--json"), own.describe());
    }
}
