package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import dev.safetensors.StorageException;
import dev.safetensors.spi.ObjectUpload;
import dev.safetensors.spi.UploadOptions;
import dev.safetensors.spi.WrittenObject;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The executor's side of a write to a store prefix: a task attempt writes its files, exactly as for a local output,
 * into a temporary folder of its own on the executor, and uploads them to their final object names
 * ({@link StoreJob#name}) when it commits. Spark's commit coordinator lets one attempt per partition reach the
 * commit, so attempts that lose or fail before it upload nothing; one that fails while uploading deletes what it
 * uploaded. The temporary folder is deleted either way.
 */
final class UploadedAttempt {
    private static final int BLOCK = 1 << 20;
    private final StoreJob job;
    private final int partition;
    private final Path temp;
    private final List<Location> uploaded = new ArrayList<>();

    private UploadedAttempt(StoreJob job, int partition, Path temp) {
        this.job = job;
        this.partition = partition;
        this.temp = temp;
    }

    /** Makes the attempt's temporary folder, in {@code java.io.tmpdir}. */
    static UploadedAttempt start(StoreJob job, int partition) throws IOException {
        try {
            return new UploadedAttempt(job, partition, Files.createTempDirectory("safetensors-spark-" + job.jobId()
                    + "-" + partition + "-"));
        } catch (IOException e) {
            throw new StorageException(ErrorCode.WRITE_FAILED, System.getProperty("java.io.tmpdir"), "cannot create"
                    + " the task's temporary folder", e);
        }
    }

    /** @return the temporary folder the attempt's folder goes into */
    Path temp() {
        return temp;
    }

    /**
     * Uploads the attempt's files in order, each deleted locally once its object is committed, then the folder.
     *
     * @param local what the attempt wrote into its folder
     * @return the same files named by their objects below the prefix
     */
    TaskFiles upload(TaskFiles local) throws IOException {
        List<WrittenFile> named = new ArrayList<>();
        for (int k = 0; k < local.files().size(); k++) {
            WrittenFile f = local.files().get(k);
            String name = job.name(partition, k);
            Path file = Path.of(local.folder()).resolve(f.name());
            put(file, job.at(name));
            Files.delete(file);
            named.add(new WrittenFile(name, f.rows(), f.tensorBytes(), f.tensors(), f.keys()));
        }
        Staging.deleteTree(temp);
        return new TaskFiles(partition, job.prefix(), List.copyOf(named));
    }

    /**
     * Overwrite is allowed: the name is this job's and this partition's, so an object already there is a dead
     * earlier attempt's, whose content this one replaces.
     */
    private void put(Path file, Location at) throws IOException {
        long size = Files.size(file);
        UploadOptions options = UploadOptions.DEFAULT.withOverwrite(true).withSizeHint(size);
        // counted before the commit: an upload that fails may still have made the object visible
        uploaded.add(at);
        WrittenObject written;
        try (FileChannel in = FileChannel.open(file);
             ObjectUpload upload = SparkSources.registry().writer(at).create(at, options)) {
            ByteBuffer block = ByteBuffer.allocate(BLOCK);
            while (in.read(block.clear()) >= 0) {
                upload.write(block.flip());
            }
            written = upload.commit();
        }
        if (written.size() != size) {
            throw new StorageException(ErrorCode.WRITE_FAILED, at.display(), "the store holds " + written.size()
                    + " bytes of the " + size + " uploaded");
        }
    }

    /** Deletes what the attempt uploaded and its temporary folder, going on past each failure. */
    void abort() throws IOException {
        IOException failure = null;
        for (int i = uploaded.size() - 1; i >= 0; i--) {
            try {
                SparkSources.registry().writer(uploaded.get(i)).delete(uploaded.get(i));
            } catch (IOException e) {
                failure = add(failure, e);
            }
        }
        uploaded.clear();
        try {
            Staging.deleteTree(temp);
        } catch (IOException e) {
            failure = add(failure, e);
        }
        if (failure != null) {
            throw failure;
        }
    }

    private static IOException add(IOException first, IOException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }
}
