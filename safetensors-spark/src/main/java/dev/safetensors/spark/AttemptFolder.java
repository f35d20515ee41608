package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import org.apache.spark.TaskContext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The folder of one task attempt inside the job's staging folder: everything the attempt writes goes there, under
 * names no other attempt uses, so a failed, retried or speculative attempt never touches another's files. It is
 * created with {@link Files#createDirectory}, not {@code createDirectories}: an attempt still running after its job
 * ended (and its staging folder was deleted) fails instead of leaving a folder behind.
 */
final class AttemptFolder {
    private final Path folder;
    private final int partition;
    private final WriteOptions options;
    private int files;
    private long rows;

    AttemptFolder(String staging, int partition, long taskId, WriteOptions options) throws IOException {
        this.folder = Path.of(staging).resolve("attempt-" + partition + "-" + taskId);
        this.partition = partition;
        this.options = options;
        try {
            Files.createDirectory(folder);
        } catch (IOException e) {
            throw new StorageException(ErrorCode.WRITE_FAILED, folder.toString(), "cannot create the task's folder"
                    + " (has the job ended?)", e);
        }
    }

    /** @return a new name in the folder, unique within the attempt */
    Path next(String suffix) {
        return folder.resolve(String.format("%05d%s", files++, suffix));
    }

    /**
     * Counts a row received. The test hook {@code testFailFirstAttempt} fails attempt 0 of the chosen partitions
     * at their first row, after the folder was made.
     *
     * @return where the row is, for messages: {@code partition P, row R} (R from 0)
     */
    String nextRow() throws IOException {
        long row = rows++;
        TaskContext task = TaskContext.get();
        if (row == 0 && task != null && task.attemptNumber() == 0 && options.failsFirstAttempt(partition)) {
            throw new StorageException(ErrorCode.IO_ERROR, folder.toString(), "failure injected by option"
                    + " testFailFirstAttempt into attempt 0 of partition " + partition);
        }
        return "partition " + partition + ", row " + row;
    }

    TaskFiles commit(List<WrittenFile> written) {
        return new TaskFiles(partition, folder.toString(), List.copyOf(written));
    }

    /** Deletes the folder and everything in it. */
    void delete() throws IOException {
        Staging.deleteTree(folder);
    }
}
