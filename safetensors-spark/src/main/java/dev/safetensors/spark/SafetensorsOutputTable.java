package dev.safetensors.spark;

import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsTruncate;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;

import java.util.Map;
import java.util.Set;

/**
 * The output folder of a write, as a DSv2 table that accepts any rows (the layout checks them) and batch writes,
 * truncating (replacing the folder's content at job commit) when the save mode is overwrite.
 */
final class SafetensorsOutputTable implements SupportsWrite {
    private final StructType schema;
    private final Map<String, String> properties;

    SafetensorsOutputTable(StructType schema, Map<String, String> properties) {
        this.schema = schema;
        this.properties = Map.copyOf(properties);
    }

    @Override
    public String name() {
        return "safetensors output " + properties.getOrDefault("path", "");
    }

    @Override
    @SuppressWarnings("deprecation")
    public StructType schema() {
        return schema;
    }

    @Override
    public Set<TableCapability> capabilities() {
        return Set.of(TableCapability.BATCH_WRITE, TableCapability.TRUNCATE, TableCapability.ACCEPT_ANY_SCHEMA);
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
        java.util.Map<String, String> all = new java.util.HashMap<>(properties);
        all.putAll(info.options().asCaseSensitiveMap());
        WriteOptions options = WriteOptions.parse(all);
        StructType rows = info.schema();
        switch (options.layout()) {
            case CHECKPOINT -> CheckpointRows.check(rows, options);
            case SAMPLES -> SamplesRows.columns(rows, options);
            default -> KeyedRows.columns(rows, options);
        }
        return new Builder(options, rows);
    }

    /** Builds the batch write; truncation is the save mode the driver already put in the options. */
    private record Builder(WriteOptions options, StructType rows) implements WriteBuilder, SupportsTruncate {
        @Override
        public WriteBuilder truncate() {
            return this;
        }

        @Override
        public Write build() {
            return new Write() {
                @Override
                public BatchWrite toBatch() {
                    return new SafetensorsBatchWrite(options, rows);
                }

                @Override
                public String description() {
                    return "safetensors " + options.layout().name().toLowerCase(java.util.Locale.ROOT) + " into "
                            + options.path();
                }
            };
        }
    }
}
