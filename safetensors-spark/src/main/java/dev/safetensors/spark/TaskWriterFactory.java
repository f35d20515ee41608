package dev.safetensors.spark;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.types.StructType;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Shipped to the executors: makes each task attempt's writer, in a folder of the attempt's own.
 *
 * @param options the write's options
 * @param schema  the rows' schema
 * @param staging the job's staging folder, or null for a store output
 * @param store   the job's object names under a store prefix, or null for a local output
 * @param hadoop  the driver's Hadoop configuration, installed in the executor before the task writes: the
 *                filesystems and {@code fs.s3a.*} settings a store output is uploaded with
 */
record TaskWriterFactory(WriteOptions options, StructType schema, String staging, StoreJob store, HadoopConf hadoop)
        implements DataWriterFactory {
    @Override
    public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
        HadoopFiles.use(hadoop);
        try {
            AttemptFolder folder = store == null ? new AttemptFolder(staging, partitionId, taskId, options)
                    : new AttemptFolder(UploadedAttempt.start(store, partitionId), partitionId, taskId, options);
            return switch (options.layout()) {
                case CHECKPOINT -> new CheckpointRows(options, schema, folder);
                case SAMPLES -> new SamplesRows(options, SamplesRows.columns(schema, options), folder);
                case KEYED -> new KeyedRows(options, KeyedRows.keyColumn(schema, options),
                        KeyedRows.columns(schema, options), folder);
            };
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
