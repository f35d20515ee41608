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
 *
 * <p>For a store output the staging folder is the attempt's temporary folder on the executor, and the commit
 * uploads the files ({@link UploadedAttempt}).
 */
final class AttemptFolder {
    private final Path folder;
    private final int partition;
    private final WriteOptions options;
    /** The upload of a store output's attempt, or null for a local output. */
    private final UploadedAttempt upload;
    private int files;
    private long rows;

    AttemptFolder(String staging, int partition, long taskId, WriteOptions options) throws IOException {
        this(Path.of(staging), partition, taskId, options, null);
    }

    /** The folder of an attempt whose files go to a store prefix, inside its temporary folder. */
    AttemptFolder(UploadedAttempt upload, int partition, long taskId, WriteOptions options) throws IOException {
        this(upload.temp(), partition, taskId, options, upload);
    }

    private AttemptFolder(Path staging, int partition, long taskId, WriteOptions options, UploadedAttempt upload)
            throws IOException {
        this.folder = staging.resolve("attempt-" + partition + "-" + taskId);
        this.partition = partition;
        this.options = options;
        this.upload = upload;
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

    /** @return the commit message: the files in the folder, or the objects they were uploaded to */
    TaskFiles commit(List<WrittenFile> written) throws IOException {
        TaskFiles local = new TaskFiles(partition, folder.toString(), List.copyOf(written));
        return upload == null ? local : upload.upload(local);
    }

    /** Deletes the folder and everything in it, and what a store output's attempt uploaded. */
    void delete() throws IOException {
        Staging.deleteTree(folder);
        if (upload != null) {
            upload.abort();
        }
    }
}
