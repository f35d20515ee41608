package dev.safetensors.spark;

import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

import java.util.List;
import java.util.Set;

/** The checkpoints at some locations, readable in batch. */
final class SafetensorsTable implements SupportsRead {
    private final List<String> locations;
    private final ScanOptions options;

    SafetensorsTable(List<String> locations, ScanOptions options) {
        this.locations = List.copyOf(locations);
        this.options = options;
    }

    @Override
    public String name() {
        return "safetensors " + String.join(", ", locations);
    }

    /** Spark 4 prefers {@code columns()}, which it derives from this; Spark 3.5 knows only this. */
    @Override
    @SuppressWarnings("deprecation")
    public StructType schema() {
        return SafetensorsSchemas.of(options);
    }

    @Override
    public Set<TableCapability> capabilities() {
        return Set.of(TableCapability.BATCH_READ);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap scanOptions) {
        return new SafetensorsScanBuilder(locations, options);
    }
}
