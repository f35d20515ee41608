package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One task of {@code layout=keyed}: each row's value columns become tensors named by its key ({@code KEY} when there
 * is one value column, {@code KEY.COLUMN} otherwise), written into files that roll over once the next row would take
 * them past {@code maxFileSize} tensor bytes. A key seen twice in the task is refused here; across tasks the driver
 * refuses it at job commit ({@code duplicates=last} removes duplicates before the write).
 */
final class KeyedRows extends SpooledRows {
    private final int key;
    private final List<ValueColumn> columns;
    private final Set<String> keys = new HashSet<>();

    KeyedRows(WriteOptions options, int key, List<ValueColumn> columns, AttemptFolder folder) {
        super(options, folder);
        this.key = key;
        this.columns = columns;
    }

    /** @return the position of the key column, checked on the driver */
    static int keyColumn(StructType schema, WriteOptions options) {
        if (!schema.getFieldIndex(options.key()).isDefined()
                || !(schema.apply(options.key()).dataType() instanceof StringType)) {
            throw new IllegalArgumentException("option key names " + options.key() + "; expected a string column of "
                    + schema.simpleString());
        }
        return schema.fieldIndex(options.key());
    }

    /** @return the value columns: every column but the key */
    static List<ValueColumn> columns(StructType schema, WriteOptions options) {
        return ValueColumn.all(schema, options, keyColumn(schema, options));
    }

    @Override
    public void write(InternalRow row) throws IOException {
        String where = folder.nextRow();
        if (row.isNullAt(key)) {
            throw new InvalidHeaderException(ErrorCode.INVALID_TENSOR_ENTRY, where, "the key is null");
        }
        String k = RowText.of(row.getUTF8String(key), "the key", where);
        if (!keys.add(k)) {
            throw new InvalidHeaderException(ErrorCode.DUPLICATE_KEY, where, "key " + k + " was seen before; write"
                    + " with option duplicates=last to keep the last row of each key");
        }
        List<ByteBuffer> values = new ArrayList<>();
        long bytes = 0;
        for (ValueColumn col : columns) {
            if (row.isNullAt(col.index())) {
                throw new InvalidHeaderException(ErrorCode.INVALID_TENSOR_ENTRY, where, "column " + col.name()
                        + " is null", k, -1);
            }
            ArrayData a = col.values(row);
            ByteBuffer b = ByteBuffer.allocate(Math.multiplyExact(a.numElements(), col.dtype().byteSize()));
            ElementEncoding.encode(a, col.element(), col.dtype(), b, where + ", column " + col.name());
            values.add(b.flip());
            bytes += b.remaining();
        }
        SpooledFile current = fileFor(bytes);
        current.key(k);
        for (int c = 0; c < columns.size(); c++) {
            ValueColumn col = columns.get(c);
            ByteBuffer b = values.get(c);
            long[] shape = col.scalar() ? new long[0] : new long[]{b.remaining() / col.dtype().byteSize()};
            current.begin(columns.size() == 1 ? k : k + "." + col.name(), col.dtype(), shape, b.remaining());
            current.append(b);
        }
        countRow();
    }
}
