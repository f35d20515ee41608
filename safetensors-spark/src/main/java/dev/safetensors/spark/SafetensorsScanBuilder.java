package dev.safetensors.spark;

import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownFilters;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructType;

import java.util.List;

/**
 * Takes the columns Spark needs (so tensor bytes and checksums are fetched only when their column is selected) and
 * the filters on {@code tensor} and {@code dtype} (so only the matching tensors' bytes are fetched). Every filter is
 * handed back to Spark to evaluate after the scan as well.
 */
final class SafetensorsScanBuilder implements ScanBuilder, SupportsPushDownRequiredColumns, SupportsPushDownFilters {
    private final List<String> locations;
    private final ScanOptions options;
    private StructType required;
    private TensorFilter filter = TensorFilter.ALL;

    SafetensorsScanBuilder(List<String> locations, ScanOptions options) {
        this.locations = locations;
        this.options = options;
        this.required = SafetensorsSchemas.of(options);
    }

    @Override
    public void pruneColumns(StructType requiredSchema) {
        this.required = requiredSchema;
    }

    @Override
    public Filter[] pushFilters(Filter[] filters) {
        if (options.level() == ScanOptions.Level.TENSOR) {
            filter = TensorFilter.of(filters);
        }
        return filters;
    }

    @Override
    public Filter[] pushedFilters() {
        return filter.pushed();
    }

    @Override
    public Scan build() {
        return new SafetensorsScan(locations, options, required, filter);
    }
}
