package dev.safetensors.spark;

import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;

import java.util.List;

/**
 * One scan: the files are listed on the first {@link #planInputPartitions()} and kept, because Spark plans a batch
 * scan more than once per action and a listing of a large folder is the most expensive step on the driver. The
 * listing is packed into partitions as it goes ({@link PartitionPacker}), and what is kept is the partitions'
 * compact form ({@link FilePartition}), not an object per file.
 */
final class SafetensorsScan implements Scan, Batch {
    private final List<String> locations;
    private final ScanOptions options;
    private final StructType required;
    private final TensorFilter filter;
    private InputPartition[] partitions;
    private HadoopConf hadoop;
    private long unreadable;

    SafetensorsScan(List<String> locations, ScanOptions options, StructType required, TensorFilter filter) {
        this.locations = List.copyOf(locations);
        this.options = options;
        this.required = required;
        this.filter = filter;
    }

    @Override
    public StructType readSchema() {
        return required;
    }

    @Override
    public String description() {
        return "safetensors " + options.level().name().toLowerCase(java.util.Locale.ROOT) + " scan of "
                + locations.size() + " location(s)";
    }

    @Override
    public Batch toBatch() {
        return this;
    }

    @Override
    public synchronized InputPartition[] planInputPartitions() {
        if (partitions == null) {
            hadoop = HadoopConf.of(org.apache.spark.sql.SparkSession.active().sparkContext().hadoopConfiguration());
            HadoopFiles.use(hadoop);
            PartitionPacker packer = new PartitionPacker(options.filesPerPartition(), options.maxPartitionBytes());
            unreadable = FileListing.list(locations, options, packer);
            partitions = packer.finish();
        }
        return partitions.clone();
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return new ReaderFactory(options, required, filter, hadoop);
    }

    @Override
    public CustomMetric[] supportedCustomMetrics() {
        return ScanMetrics.supported();
    }

    /** The listing's own figure, known on the driver once the partitions are planned. */
    @Override
    public synchronized CustomTaskMetric[] reportDriverMetrics() {
        return new CustomTaskMetric[]{new TaskMetric(UnreadableMetric.NAME, unreadable)};
    }
}
