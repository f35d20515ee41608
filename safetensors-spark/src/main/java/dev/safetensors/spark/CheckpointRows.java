package dev.safetensors.spark;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.core.Float32Narrowing;
import dev.safetensors.core.TensorShapes;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.StructType;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;

/**
 * One task of {@code layout=checkpoint}: rows of the tensor-level schema ({@code tensor}, {@code dtype},
 * {@code shape}, {@code data} binary or array&lt;float&gt;, and {@code chunk} when a tensor spans rows) become
 * shards of at most {@code maxShardSize} tensor bytes. A tensor's chunks must arrive in one task in order, as the
 * reader produces them.
 */
final class CheckpointRows extends SpooledRows {
    private final int tensor;
    private final int dtype;
    private final int shape;
    private final int data;
    private final int chunk;
    private final boolean floats;
    private final boolean intShape;
    private final Set<String> names = new HashSet<>();
    private String open;
    private int lastChunk;
    private DType openDtype;

    CheckpointRows(WriteOptions options, StructType schema, AttemptFolder folder) {
        super(options, folder);
        this.tensor = column(schema, "tensor");
        this.dtype = schema.getFieldIndex("dtype").isDefined() ? schema.fieldIndex("dtype") : -1;
        this.shape = column(schema, "shape");
        this.data = column(schema, "data");
        this.chunk = schema.getFieldIndex("chunk").isDefined() ? schema.fieldIndex("chunk") : -1;
        DataType d = schema.fields()[data].dataType();
        this.floats = d instanceof ArrayType a && a.elementType() instanceof FloatType;
        DataType s = schema.fields()[shape].dataType();
        this.intShape = s instanceof ArrayType a && a.elementType() instanceof IntegerType;
    }

    /** Checks on the driver that the columns are the tensor-level schema's. */
    static void check(StructType schema, WriteOptions options) {
        column(schema, "tensor");
        DataType s = schema.fields()[column(schema, "shape")].dataType();
        DataType d = schema.fields()[column(schema, "data")].dataType();
        if (!(s instanceof ArrayType sa && (sa.elementType() instanceof LongType
                || sa.elementType() instanceof IntegerType))) {
            throw new IllegalArgumentException("column shape is " + s.simpleString() + "; expected array<bigint>");
        }
        boolean floats = d instanceof ArrayType a && a.elementType() instanceof FloatType;
        if (!(d instanceof BinaryType) && !floats) {
            throw new IllegalArgumentException("column data is " + d.simpleString() + "; expected binary (read with"
                    + " data=binary) or array<float> (data=float32)");
        }
        if (!schema.getFieldIndex("dtype").isDefined() && (!floats || options.dtype() == null)) {
            throw new IllegalArgumentException("no column dtype: give one, or option dtype with array<float> data");
        }
        if (floats && options.dtype() != null && !Float32Narrowing.supports(options.dtype())) {
            throw new IllegalArgumentException("option dtype is " + options.dtype() + "; array<float> data is"
                    + " written as F32, F16 or BF16");
        }
    }

    private static int column(StructType schema, String name) {
        if (!schema.getFieldIndex(name).isDefined()) {
            throw new IllegalArgumentException("layout checkpoint needs column " + name + " (the columns of"
                    + " spark.read.format(\"safetensors\") with data=binary); the rows have " + schema.simpleString());
        }
        return schema.fieldIndex(name);
    }

    @Override
    public void write(InternalRow row) throws IOException {
        String where = folder.nextRow();
        if (row.isNullAt(tensor) || row.isNullAt(shape)) {
            throw new InvalidHeaderException(ErrorCode.INVALID_TENSOR_ENTRY, options.path(), where + " has no"
                    + " tensor name or shape (an error row of the reader?)");
        }
        String name = RowText.of(row.getUTF8String(tensor), where + "'s tensor name", options.path());
        int c = chunk < 0 || row.isNullAt(chunk) ? 0 : row.getInt(chunk);
        if (c == 0) {
            startTensor(name, row);
        } else if (!name.equals(open) || c != lastChunk + 1) {
            throw new InvalidHeaderException(ErrorCode.LENGTH_MISMATCH, options.path(), "chunk " + c + " arrived"
                    + " without chunk " + (c - 1) + " just before it in the same task; keep a tensor's chunks"
                    + " together and in order (repartition by tensor, sort by tensor and chunk)", name, -1);
        }
        lastChunk = c;
        if (row.isNullAt(data)) {
            throw new InvalidHeaderException(ErrorCode.INVALID_TENSOR_ENTRY, options.path(), "data is null (a"
                    + " dtype the float32 reading does not widen?)", name, -1);
        }
        if (floats) {
            ArrayData a = row.getArray(data);
            ByteBuffer b = ByteBuffer.allocate(a.numElements() * openDtype.byteSize());
            Float32Narrowing.narrow(openDtype, a.toFloatArray(), 0, a.numElements(), b);
            current().append(b.flip());
        } else {
            current().append(ByteBuffer.wrap(row.getBinary(data)));
        }
    }

    private void startTensor(String name, InternalRow row) throws IOException {
        if (!names.add(name)) {
            throw new InvalidHeaderException(ErrorCode.DUPLICATE_KEY, options.path(), "two tensors have this name",
                    name, -1);
        }
        if (!(options.dtype() != null && floats) && row.isNullAt(dtype)) {
            throw new InvalidHeaderException(ErrorCode.INVALID_TENSOR_ENTRY, options.path(), "the dtype is null",
                    name, -1);
        }
        DType d = options.dtype() != null && floats ? options.dtype() : rowDtype(name, row);
        if (floats && !Float32Narrowing.supports(d)) {
            throw new InvalidHeaderException(ErrorCode.UNSUPPORTED_DTYPE, options.path(), "array<float> data of a "
                    + d + " tensor; give option dtype F32, F16 or BF16", name, -1);
        }
        ArrayData s = row.getArray(shape);
        long[] dims = intShape ? java.util.Arrays.stream(s.toIntArray()).asLongStream().toArray() : s.toLongArray();
        long length = TensorShapes.byteLength(options.path(), name, d, dims);
        fileFor(length).begin(name, d, dims, length);
        open = name;
        openDtype = d;
    }

    private DType rowDtype(String name, InternalRow row) throws InvalidHeaderException {
        String v = row.getUTF8String(dtype).toString();
        return DType.fromName(v).orElseThrow(() -> new InvalidHeaderException(ErrorCode.UNSUPPORTED_DTYPE,
                options.path(), "unknown dtype '" + v + "'", name, -1));
    }

}
