package dev.safetensors.spark;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The schemas of the {@code safetensors} data source. Columns are never renamed or reordered within a release;
 * new ones are added at the end.
 *
 * <p>Offsets are absolute byte offsets in the file ({@code begin} of the first tensor is {@code 8 + header_length}),
 * so a tensor is the range {@code [begin, end)} of the object at {@code path}. A file that fails (unreadable, or
 * breaking a rule of the policy) has {@code error_code} (an {@link dev.safetensors.ErrorCode} name) and
 * {@code error} (the message) set, and at the tensor level exactly one row, whose tensor columns are null; so has a
 * valid file with no tensors, with null error columns.
 */
public final class SafetensorsSchemas {
    private SafetensorsSchemas() {
    }

    /**
     * {@code level=tensor} (the default), one row per tensor: {@code path string, file_size long,
     * header_length long, version string, tensor string, dtype string, shape array<long>, element_count long,
     * begin long, end long, error_code string, error string}. {@code version} is what the storage reports as the
     * object's identity (S3 versionId or ETag, GCS generation, HTTP ETag), null for local files.
     */
    public static final StructType TENSOR = new StructType(new StructField[]{
        field("path", DataTypes.StringType, false),
        field("file_size", DataTypes.LongType, true),
        field("header_length", DataTypes.LongType, true),
        field("version", DataTypes.StringType, true),
        field("tensor", DataTypes.StringType, true),
        field("dtype", DataTypes.StringType, true),
        field("shape", DataTypes.createArrayType(DataTypes.LongType, false), true),
        field("element_count", DataTypes.LongType, true),
        field("begin", DataTypes.LongType, true),
        field("end", DataTypes.LongType, true),
        field("error_code", DataTypes.StringType, true),
        field("error", DataTypes.StringType, true),
    });

    /** Added to {@link #TENSOR} by {@code checksum=sha256}: the lower-case hex SHA-256 of the tensor's bytes. */
    public static final StructField SHA256 = field("sha256", DataTypes.StringType, true);

    /**
     * Added to {@link #TENSOR} by {@code data=binary} or {@code data=float32}, with {@link #DATA_BINARY} or
     * {@link #DATA_FLOAT32}: the index of the chunk in its tensor. A tensor holding more than {@code maxTensorBytes}
     * bytes (after widening, for {@code float32}) is split into rows of at most that many bytes, chunk 0 first.
     */
    public static final StructField CHUNK = field("chunk", DataTypes.IntegerType, true);

    /** The tensor's original little-endian bytes (or one chunk of them), by {@code data=binary}. */
    public static final StructField DATA_BINARY = field("data", DataTypes.BinaryType, true);

    /** The tensor widened to float (or one chunk of it), by {@code data=float32}; null for non-float dtypes. */
    public static final StructField DATA_FLOAT32 = field("data", DataTypes.createArrayType(DataTypes.FloatType, false),
            true);

    /**
     * {@code level=file}, one row per file: {@code path string, file_size long, header_length long,
     * version string, tensor_count long, parameters long, dtype_counts map<string,long>,
     * metadata map<string,string>, requests long, bytes_read long, error_code string, error string}.
     * {@code parameters} is the sum of the tensors' element counts, {@code dtype_counts} the number of tensors of
     * each dtype, {@code requests} and {@code bytes_read} what reading the header cost.
     */
    public static final StructType FILE = new StructType(new StructField[]{
        field("path", DataTypes.StringType, false),
        field("file_size", DataTypes.LongType, true),
        field("header_length", DataTypes.LongType, true),
        field("version", DataTypes.StringType, true),
        field("tensor_count", DataTypes.LongType, true),
        field("parameters", DataTypes.LongType, true),
        field("dtype_counts", DataTypes.createMapType(DataTypes.StringType, DataTypes.LongType, false), true),
        field("metadata", DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType, false), true),
        field("requests", DataTypes.LongType, false),
        field("bytes_read", DataTypes.LongType, false),
        field("error_code", DataTypes.StringType, true),
        field("error", DataTypes.StringType, true),
    });

    /** The schema a read with these options produces. */
    static StructType of(ScanOptions options) {
        if (options.level() == ScanOptions.Level.FILE) {
            return FILE;
        }
        StructType s = TENSOR;
        if (options.sha256()) {
            s = s.add(SHA256);
        }
        if (options.data() != ScanOptions.DataMode.NONE) {
            s = s.add(CHUNK).add(options.data() == ScanOptions.DataMode.BINARY ? DATA_BINARY : DATA_FLOAT32);
        }
        return s;
    }

    private static StructField field(String name, DataType type, boolean nullable) {
        return DataTypes.createStructField(name, type, nullable);
    }
}
