package dev.safetensors.spark;

import dev.safetensors.Location;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.StructType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One write job: the staging folder is made when Spark asks for the writer factory, each task commits into its own
 * attempt folder (Spark's commit coordinator lets one attempt per partition commit), and the job commit renames the
 * committed files into the output, the index or manifest last; an aborted job leaves the output as it was. A store
 * prefix has no rename: its tasks upload their files under final names when they commit, and the job commit
 * uploads the index or manifest last ({@link StoreOutput}).
 */
final class SafetensorsBatchWrite implements BatchWrite {
    private static final System.Logger LOG = System.getLogger(SafetensorsBatchWrite.class.getName());
    private final WriteOptions options;
    private final StructType schema;
    private final Staging.FileMoves moves;
    private JobOutput output;

    SafetensorsBatchWrite(WriteOptions options, StructType schema) {
        this(options, schema, Staging.FileMoves.FILE_SYSTEM);
    }

    /** A job whose publish renames and deletes through {@code moves}: a test's, to fail one of them. */
    SafetensorsBatchWrite(WriteOptions options, StructType schema, Staging.FileMoves moves) {
        this.options = options;
        this.schema = schema;
        this.moves = moves;
    }

    @Override
    public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
        try {
            HadoopConf hadoop = HadoopConf.of(SparkSession.active().sparkContext().hadoopConfiguration());
            HadoopFiles.use(hadoop);
            Optional<Location> store = Locations.output(Locations.normalize(options.path()));
            if (store.isPresent()) {
                StoreOutput s = StoreOutput.prepare(options, store.get());
                output = s;
                return new TaskWriterFactory(options, schema, null, s.job(), hadoop);
            }
            Staging staging = Staging.prepare(options, moves);
            output = staging;
            return new TaskWriterFactory(options, schema, staging.folder().toString(), null, hadoop);
        } catch (IOException e) {
            throw unchecked(e);
        }
    }

    @Override
    public boolean useCommitCoordinator() {
        return true;
    }

    @Override
    public void commit(WriterCommitMessage[] messages) {
        List<TaskFiles> tasks = new ArrayList<>();
        for (WriterCommitMessage m : messages) {
            if (m instanceof TaskFiles t) {
                tasks.add(t);
            }
        }
        try {
            new JobCommit(options, output, tasks).commit();
        } catch (IOException e) {
            throw unchecked(e);
        }
    }

    /**
     * Spark's job methods throw no checked exception: the failure goes as the cause of an unchecked one, coded
     * (a JDK failure wrapped in a {@link dev.safetensors.StorageException} of its code), the message its own, code
     * included.
     */
    private UncheckedIOException unchecked(IOException e) {
        IOException coded = Staging.coded(e, options.path(), "the write failed");
        return new UncheckedIOException(coded.getMessage(), coded);
    }

    @Override
    public void abort(WriterCommitMessage[] messages) {
        if (output == null) {
            return;
        }
        try {
            output.abort();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "could not clean up the aborted write into " + output.display(), e);
        }
    }
}
