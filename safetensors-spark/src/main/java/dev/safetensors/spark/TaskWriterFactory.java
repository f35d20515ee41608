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
 * @param staging the job's staging folder
 */
record TaskWriterFactory(WriteOptions options, StructType schema, String staging) implements DataWriterFactory {
    @Override
    public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
        try {
            AttemptFolder folder = new AttemptFolder(staging, partitionId, taskId, options);
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
