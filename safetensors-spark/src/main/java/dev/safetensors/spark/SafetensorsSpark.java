package dev.safetensors.spark;

import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.UDFRegistration;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.api.java.UDF3;
import org.apache.spark.sql.catalyst.CatalystTypeConverters;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * The tensor functions ({@link #registerFunctions}), and reading headers of locations that come from a dataset, such as an S3 Inventory or GCS Storage Insights report or a
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
        InternalRowsToRows rows = new InternalRowsToRows(parsed, schema,
                HadoopConf.of(spark.sparkContext().hadoopConfiguration()));
        return locations.mapPartitions(rows, Encoders.row(schema));
    }

    /**
     * Registers the tensor functions in the session, for the DataFrame API ({@code functions.call_function}) and
     * SQL:
     * <ul>
     *   <li>{@code st_decode_float(data binary, dtype string, shape array<bigint>)} to {@code array<float>}: F32,
     *       F16, BF16 and the 8-bit floats widened exactly, F64 rounded to float;</li>
     *   <li>{@code st_decode_double(data, dtype, shape)} to {@code array<double>}: F64, or a float dtype widened;</li>
     *   <li>{@code st_decode_long(data, dtype, shape)} to {@code array<bigint>}: I8 to I64, U8 to U32, BOOL, and
     *       U64 values up to 2^63-1;</li>
     *   <li>{@code st_encode(values array<numeric>, dtype string)} to {@code binary}: the values as little-endian
     *       elements of F32, F16 or BF16 (round-to-nearest-even, once, from the float or double given),
     *       F64, I8 to I64, U8 to U32 (integers only, range-checked) or BOOL.</li>
     * </ul>
     * The shape may be null; when given, it gets the reader's arithmetic and the bytes must hold exactly its elements.
     * A failure is a {@link dev.safetensors.SafetensorsException} with its {@link dev.safetensors.ErrorCode}
     * ({@code LENGTH_MISMATCH}, {@code NOT_FLOAT_READABLE}, {@code UNSUPPORTED_DTYPE}, {@code OVERFLOW},
     * {@code INVALID_NUMBER} for a negative dimension), which Spark
     * reports as the cause of the query's failure.
     *
     * @param spark the session
     */
    public static void registerFunctions(SparkSession spark) {
        UDFRegistration udf = spark.udf();
        udf.register("st_decode_float", (UDF3<byte[], String, scala.collection.Seq<Object>, float[]>)
                (data, dtype, shape) -> data == null ? null : TensorFunctions.decodeFloat(data, dtype, longs(shape)),
                DataTypes.createArrayType(DataTypes.FloatType, false));
        udf.register("st_decode_double", (UDF3<byte[], String, scala.collection.Seq<Object>, double[]>)
                (data, dtype, shape) -> data == null ? null : TensorFunctions.decodeDouble(data, dtype, longs(shape)),
                DataTypes.createArrayType(DataTypes.DoubleType, false));
        udf.register("st_decode_long", (UDF3<byte[], String, scala.collection.Seq<Object>, long[]>)
                (data, dtype, shape) -> data == null ? null : TensorFunctions.decodeLong(data, dtype, longs(shape)),
                DataTypes.createArrayType(DataTypes.LongType, false));
        udf.register("st_encode", (UDF2<scala.collection.Seq<Object>, String, byte[]>)
                (values, dtype) -> values == null ? null : TensorFunctions.encode(objects(values), dtype),
                DataTypes.BinaryType);
    }

    private static long[] longs(scala.collection.Seq<Object> shape) {
        if (shape == null) {
            return null;
        }
        Object[] o = objects(shape);
        long[] out = new long[o.length];
        for (int i = 0; i < o.length; i++) {
            out[i] = ((Number) o[i]).longValue();
        }
        return out;
    }

    /** Spark hands arrays to Java functions as a Scala Seq (2.12 and 2.13 alike); read through its iterator. */
    private static Object[] objects(scala.collection.Seq<Object> seq) {
        Object[] out = new Object[seq.length()];
        scala.collection.Iterator<Object> it = seq.iterator();
        for (int i = 0; i < out.length; i++) {
            out[i] = it.next();
        }
        return out;
    }

    /**
     * Reads one partition of locations through the data source's own reader and converts its rows, with the
     * driver's Hadoop configuration (its filesystems, {@code fs.s3a.*}) installed, as a scan's tasks have it.
     */
    private record InternalRowsToRows(ScanOptions options, StructType schema, HadoopConf hadoop)
            implements MapPartitionsFunction<String, Row> {
        @Override
        public Iterator<Row> call(Iterator<String> input) throws Exception {
            HadoopFiles.use(hadoop);
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
