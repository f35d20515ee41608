package dev.safetensors.spark;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructType;

/**
 * Ships the options, the columns asked for, the pushed filters and the driver's Hadoop configuration (for the
 * filesystems read through Hadoop) to the tasks.
 */
record ReaderFactory(ScanOptions options, StructType required, TensorFilter filter, HadoopConf hadoop)
        implements PartitionReaderFactory {
    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
        HadoopFiles.use(hadoop);
        return new PartitionRows(((FilePartition) partition).groups(), options, required, filter);
    }
}
