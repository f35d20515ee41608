package dev.safetensors.spark;

import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.CatalystTypeConverters;
import org.apache.spark.sql.types.StructType;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * Reads headers of locations that come from a dataset, such as an S3 Inventory or GCS Storage Insights report or a
 * table of paths, with no listing at all: for buckets whose listing would not fit the driver, and for remote
 * prefixes, which the storage backends cannot list.
 */
public final class SafetensorsSpark {
    private SafetensorsSpark() {
    }

    /**
     * Reads the header of every location, in the tasks that hold the locations, with the default options.
     *
     * @param spark     the session
     * @param locations one location per row: a local path or a URI the library's sources open ({@code s3://},
     *                  {@code s3a://}, {@code gs://}, {@code https://}, {@code hf://})
     * @return one row per tensor, in {@link SafetensorsSchemas#TENSOR}; a file that fails is one row with the error
     *         columns set
     */
    public static Dataset<Row> readHeaders(SparkSession spark, Dataset<String> locations) {
        return readHeaders(spark, locations, Map.of());
    }

    /**
     * Reads every location's header with the data source's options ({@code level}, {@code policy}, {@code mode},
     * {@code ioThreads}, {@code checksum}, {@code data}, {@code maxTensorBytes}); the listing options do not apply,
     * and an index location is read as a file. A location appearing twice is read twice.
     *
     * @param spark     the session
     * @param locations one location per row
     * @param options   the data source's options
     * @return rows in the schema those options give ({@link SafetensorsSchemas})
     * @throws IllegalArgumentException if an option's value is not one it accepts
     */
    public static Dataset<Row> readHeaders(SparkSession spark, Dataset<String> locations, Map<String, String> options) {
        ScanOptions parsed = ScanOptions.parse(options);
        StructType schema = SafetensorsSchemas.of(parsed);
        InternalRowsToRows rows = new InternalRowsToRows(parsed, schema);
        return locations.mapPartitions(rows, Encoders.row(schema));
    }

    /** Reads one partition of locations through the data source's own reader and converts its rows. */
    private record InternalRowsToRows(ScanOptions options, StructType schema)
            implements MapPartitionsFunction<String, Row> {
        @Override
        public Iterator<Row> call(Iterator<String> input) throws Exception {
            List<FileGroup> groups = new ArrayList<>();
            input.forEachRemaining(location -> groups.add(FileGroup.of(Locations.normalize(location))));
            PartitionRows reader = new PartitionRows(groups, options, schema, TensorFilter.ALL);
            // Spark's own converter yields the external types (Scala Seq and Map) that Encoders.row expects
            scala.Function1<Object, Object> toRow = CatalystTypeConverters.createToScalaConverter(schema);
            return new Iterator<>() {
                private Row next = advance();

                private Row advance() throws java.io.IOException {
                    if (reader.next()) {
                        return (Row) toRow.apply(reader.get());
                    }
                    reader.close();
                    return null;
                }

                @Override
                public boolean hasNext() {
                    return next != null;
                }

                @Override
                public Row next() {
                    if (next == null) {
                        throw new NoSuchElementException();
                    }
                    Row r = next;
                    try {
                        next = advance();
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                    return r;
                }
            };
        }
    }
}
