package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import dev.safetensors.core.SafetensorsFile;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiPredicate;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * mode("overwrite") whose publish fails half-way: a rename or a deletion refused at a chosen step (as root no
 * permission stops one, so the failure comes through the publish's file operations), driven as Spark drives a job
 * (tasks commit, the job commits, and a failed job commit is followed by the job's abort). The old output must be
 * back whole after every failure, and the failure a coded one.
 */
class OverwriteFailureTest {
    private static final StructType SCHEMA = new StructType()
            .add("x", DataTypes.createArrayType(DataTypes.FloatType, false));
    @TempDir
    Path dir;
    private Path out;
    private Map<String, String> before;

    @BeforeEach
    void oldOutput() throws IOException {
        out = Files.createDirectories(dir.resolve("out"));
        Files.writeString(out.resolve("manifest.json"), "{\"old\": true}");
        Files.write(out.resolve("part-00000.safetensors"), new byte[]{1, 2, 3});
        // a non-empty subfolder: the old code deleted it before the new files were in
        Files.createDirectories(out.resolve("notes/deeper"));
        Files.writeString(out.resolve("notes/deeper/keep.txt"), "the user's notes");
        Files.writeString(out.resolve("README.md"), "read me");
        before = tree(out);
    }

    /** Every file under {@code root} (staging folders included) by relative path, with its content. */
    private static Map<String, String> tree(Path root) throws IOException {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                if (Files.isRegularFile(p)) {
                    files.put(root.relativize(p).toString(), new String(Files.readAllBytes(p),
                            java.nio.charset.StandardCharsets.ISO_8859_1));
                }
            }
        }
        return files;
    }

    /** Renames that fail when {@code fails} says so, numbering them from 1, and deletions that never fail. */
    private static Staging.FileMoves failingMoves(BiPredicate<Integer, Path> fails) {
        AtomicInteger count = new AtomicInteger();
        return new Staging.FileMoves() {
            @Override
            public void move(Path from, Path to) throws IOException {
                if (fails.test(count.incrementAndGet(), from)) {
                    throw new FileSystemException(from.toString(), to.toString(), "refused by the test");
                }
                Staging.FileMoves.super.move(from, to);
            }
        };
    }

    private SafetensorsBatchWrite job(Staging.FileMoves moves) {
        WriteOptions options = WriteOptions.parse(Map.of("path", out.toString(), "layout", "samples",
                "batchSize", "1", WriteOptions.SAVE_MODE, "overwrite"));
        return new SafetensorsBatchWrite(options, SCHEMA, moves);
    }

    private static WriterCommitMessage[] tasks(SafetensorsBatchWrite job) throws IOException {
        var factory = job.createBatchWriterFactory(null);
        WriterCommitMessage[] messages = new WriterCommitMessage[2];
        for (int p = 0; p < 2; p++) {
            DataWriter<InternalRow> task = factory.createWriter(p, p);
            task.write(new GenericInternalRow(new Object[]{ArrayData.toArrayData(new float[]{p, p + 0.5f})}));
            messages[p] = task.commit();
        }
        return messages;
    }

    /** Commits as Spark does: a failed commit is followed by the job's abort. */
    private static StorageException failedCommit(SafetensorsBatchWrite job) throws IOException {
        WriterCommitMessage[] messages = tasks(job);
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> job.commit(messages));
        job.abort(messages);
        StorageException cause = assertInstanceOf(StorageException.class, e.getCause());
        assertEquals(ErrorCode.WRITE_FAILED, cause.code());
        assertTrue(e.getMessage().contains("[WRITE_FAILED]"), "the code is in Spark's message: " + e.getMessage());
        return cause;
    }

    private static List<String> names(Path folder) throws IOException {
        try (Stream<Path> s = Files.list(folder)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aRenameRefusedWhileTheOldContentMovesAsideLeavesItWhole() throws IOException {
        // the first old entry moves aside, the second does not
        StorageException e = failedCommit(job(failingMoves((n, from) -> n == 2)));
        assertTrue(e.getMessage().contains("back as it was"), e.getMessage());
        assertEquals(before, tree(out), "the old output, byte for byte, and no staging folder");
    }

    @Test
    void aNewFileRefusedAfterTheOldContentMovedAsideBringsTheOldContentBack() throws IOException {
        // the four old entries move aside, the first new file moves in, the second does not
        StorageException e = failedCommit(job(failingMoves((n, from) -> n == 6)));
        assertTrue(e.getMessage().contains("back as it was"), e.getMessage());
        assertEquals(before, tree(out), "the old output, byte for byte, and none of the new files");
    }

    @Test
    void oldContentThatCannotBeMovedBackIsKeptInTheStagingFolderNotDeletedByTheAbort() throws IOException {
        // the second old entry cannot move aside, and the first cannot move back either
        StorageException e = failedCommit(job(failingMoves((n, from) -> n == 2 || n == 3)));
        assertTrue(e.getMessage().contains("could not all be put back"), e.getMessage());
        Map<String, String> after = tree(out);
        assertEquals(before.size(), after.size(), "no old file deleted: " + after.keySet());
        assertEquals(before.values().stream().sorted().toList(), after.values().stream().sorted().toList());
        assertTrue(after.keySet().stream().anyMatch(k -> k.startsWith(Staging.PREFIX) && k.contains("/"
                + Staging.PREVIOUS + "/")), after.keySet().toString());
    }

    @Test
    void aStagingFolderThatCannotBeDeletedAfterThePublishLeavesTheNewOutputComplete() throws IOException {
        SafetensorsBatchWrite job = job(new Staging.FileMoves() {
            @Override
            public void delete(Path path) throws IOException {
                if (path.getFileName().toString().equals("keep.txt")) {
                    throw new FileSystemException(path.toString(), null, "refused by the test");
                }
                Staging.FileMoves.super.delete(path);
            }
        });
        job.commit(tasks(job));
        List<String> visible = names(out).stream().filter(n -> !n.startsWith(Staging.PREFIX)).toList();
        assertEquals(List.of("manifest.json", "part-00000.safetensors", "part-00001.safetensors"), visible);
        try (SafetensorsFile f = SafetensorsFile.open(out.resolve("part-00001.safetensors"))) {
            assertArrayEquals(new float[]{1f, 1.5f}, f.readFloat32("x"));
        }
    }

    @Test
    void aSuccessfulOverwriteLeavesOnlyTheNewOutput() throws IOException {
        SafetensorsBatchWrite job = job(Staging.FileMoves.FILE_SYSTEM);
        job.commit(tasks(job));
        assertEquals(List.of("manifest.json", "part-00000.safetensors", "part-00001.safetensors"), names(out));
    }
}
