package dev.safetensors.spark;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A task writer whose files are filled through a {@link SpooledFile} and roll over at a size: the checkpoint's
 * shards and the keyed layout's files. Commit writes the last file and reports them all; abort deletes the
 * attempt's folder.
 */
abstract class SpooledRows implements DataWriter<InternalRow> {
    /** The write's options. */
    final WriteOptions options;
    /** The attempt's folder. */
    final AttemptFolder folder;
    private final List<WrittenFile> written = new ArrayList<>();
    private SpooledFile current;
    private long rowsInFile;

    SpooledRows(WriteOptions options, AttemptFolder folder) {
        this.options = options;
        this.folder = folder;
    }

    /**
     * @param bytes the tensor bytes about to be added
     * @return the file to add them to: the current one, or a new one when they would take a non-empty file past
     *         the size limit
     */
    final SpooledFile fileFor(long bytes) throws IOException {
        if (current != null && !current.isEmpty() && current.bytes() + bytes > options.maxShardSize()) {
            finishFile();
        }
        if (current == null) {
            current = new SpooledFile(folder.next(".spool"), options.path());
        }
        return current;
    }

    /** @return the file being filled; call after {@link #fileFor} */
    final SpooledFile current() {
        return current;
    }

    /** Counts a row (key) added to the current file. */
    final void countRow() {
        rowsInFile++;
    }

    private void finishFile() throws IOException {
        written.add(current.finish(options, folder.next(".safetensors"), rowsInFile));
        current = null;
        rowsInFile = 0;
    }

    @Override
    public final WriterCommitMessage commit() throws IOException {
        if (current != null) {
            finishFile();
        }
        return folder.commit(written);
    }

    @Override
    public final void abort() throws IOException {
        close();
        folder.delete();
    }

    @Override
    public final void close() throws IOException {
        if (current != null) {
            current.close();
            current = null;
        }
    }
}
