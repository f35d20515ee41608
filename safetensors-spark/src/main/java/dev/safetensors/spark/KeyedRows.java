package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
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
final class KeyedRows implements DataWriter<InternalRow> {
    private final WriteOptions options;
    private final AttemptFolder folder;
    private final int partition;
    private final int key;
    private final List<ValueColumn> columns;
    private final List<WrittenFile> written = new ArrayList<>();
    private final Set<String> keys = new HashSet<>();
    private SpooledFile current;
    private long rows;
    private long rowsInFile;

    KeyedRows(WriteOptions options, int key, List<ValueColumn> columns, AttemptFolder folder, int partition) {
        this.options = options;
        this.key = key;
        this.columns = columns;
        this.folder = folder;
        this.partition = partition;
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
        int k = keyColumn(schema, options);
        List<ValueColumn> out = new ArrayList<>();
        for (int i = 0; i < schema.fields().length; i++) {
            if (i != k) {
                out.add(ValueColumn.of(i, schema.fields()[i], options));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("layout keyed needs a numeric column beside the key");
        }
        return List.copyOf(out);
    }

    @Override
    public void write(InternalRow row) throws IOException {
        rows++;
        folder.maybeFail(rows);
        String where = "partition " + partition + ", row " + (rows - 1);
        if (row.isNullAt(key)) {
            throw new InvalidHeaderException(ErrorCode.INVALID_TENSOR_ENTRY, where, "the key is null");
        }
        String k = row.getUTF8String(key).toString();
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
            ArrayData a = col.scalar() ? new GenericArrayData(new Object[]{row.get(col.index(), col.element())})
                    : row.getArray(col.index());
            ByteBuffer b = ByteBuffer.allocate(Math.multiplyExact(a.numElements(), col.dtype().byteSize()));
            ElementEncoding.encode(a, col.element(), col.dtype(), b, where + ", column " + col.name());
            values.add(b.flip());
            bytes += b.remaining();
        }
        if (current != null && !current.isEmpty() && current.bytes() + bytes > options.maxShardSize()) {
            finishFile();
        }
        if (current == null) {
            current = new SpooledFile(folder.next(".spool"), options.path());
        }
        current.key(k);
        for (int c = 0; c < columns.size(); c++) {
            ValueColumn col = columns.get(c);
            ByteBuffer b = values.get(c);
            long[] shape = col.scalar() ? new long[0] : new long[]{b.remaining() / col.dtype().byteSize()};
            current.begin(columns.size() == 1 ? k : k + "." + col.name(), col.dtype(), shape, b.remaining());
            current.append(b);
        }
        rowsInFile++;
    }

    private void finishFile() throws IOException {
        written.add(current.finish(options, folder.next(".safetensors"), rowsInFile));
        current = null;
        rowsInFile = 0;
    }

    @Override
    public WriterCommitMessage commit() throws IOException {
        if (current != null) {
            finishFile();
        }
        return folder.commit(written);
    }

    @Override
    public void abort() throws IOException {
        close();
        folder.delete();
    }

    @Override
    public void close() throws IOException {
        if (current != null) {
            current.close();
            current = null;
        }
    }
}
