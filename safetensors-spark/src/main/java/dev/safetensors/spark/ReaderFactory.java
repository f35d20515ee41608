package dev.safetensors.spark;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructType;

/** Ships the options, the columns asked for and the pushed filters to the tasks. */
record ReaderFactory(ScanOptions options, StructType required, TensorFilter filter) implements PartitionReaderFactory {
    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
        return new PartitionRows(((FilePartition) partition).groups(), options, required, filter);
    }
}
