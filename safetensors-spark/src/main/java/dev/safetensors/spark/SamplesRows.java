package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.core.SafetensorsWriter;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.StructType;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One task of {@code layout=samples}: every {@code batchSize} rows become one file holding one tensor per column,
 * the rows stacked along a leading dimension ({@code [rows, n]} for arrays of n values, {@code [rows]} for scalars).
 * Every row of a column has the first row's length; the task's last short batch is kept, dropped or padded with
 * zeros.
 */
final class SamplesRows implements DataWriter<InternalRow> {
    private final WriteOptions options;
    private final AttemptFolder folder;
    private final List<ValueColumn> columns;
    private final List<WrittenFile> written = new ArrayList<>();
    private final int[] lengths;
    private ByteBuffer[] batch;
    private int inBatch;

    SamplesRows(WriteOptions options, List<ValueColumn> columns, AttemptFolder folder) {
        this.options = options;
        this.columns = columns;
        this.folder = folder;
        this.lengths = new int[columns.size()];
        java.util.Arrays.fill(lengths, -1);
    }

    /** @return the value columns of the rows (all of them), checked on the driver */
    static List<ValueColumn> columns(StructType schema, WriteOptions options) {
        return ValueColumn.all(schema, options, -1);
    }

    @Override
    public void write(InternalRow row) throws IOException {
        String where = folder.nextRow();
        if (batch == null) {
            batch = new ByteBuffer[columns.size()];
        }
        for (int c = 0; c < columns.size(); c++) {
            ValueColumn col = columns.get(c);
            if (row.isNullAt(col.index())) {
                throw new InvalidHeaderException(ErrorCode.INVALID_TENSOR_ENTRY, where, "column " + col.name()
                        + " is null");
            }
            ArrayData a = col.values(row);
            if (lengths[c] < 0) {
                lengths[c] = a.numElements();
            } else if (a.numElements() != lengths[c]) {
                throw new InvalidHeaderException(ErrorCode.LENGTH_MISMATCH, where, "column " + col.name() + " has "
                        + a.numElements() + " values; the rows before it had " + lengths[c]
                        + " (every row of a samples column has the same shape)");
            }
            if (batch[c] == null) {
                long size = (long) options.batchSize() * lengths[c] * col.dtype().byteSize();
                if (size > Integer.MAX_VALUE - 8) {
                    throw new IllegalArgumentException("a batch of column " + col.name() + " would hold " + size
                            + " bytes; lower batchSize");
                }
                batch[c] = ByteBuffer.allocate((int) size);
            }
            ElementEncoding.encode(a, col.element(), col.dtype(), batch[c], where + ", column " + col.name());
        }
        if (++inBatch == options.batchSize()) {
            flush(inBatch);
        }
    }

    private void flush(int realRows) throws IOException {
        SafetensorsWriter writer = SafetensorsWriter.create().alignment(options.payloadAlignment())
                .metadata(options.metadata());
        List<WrittenTensor> tensors = new ArrayList<>();
        long bytes = 0;
        for (int c = 0; c < columns.size(); c++) {
            ValueColumn col = columns.get(c);
            int stacked = batch[c].position() / (Math.max(1, lengths[c]) * col.dtype().byteSize());
            if (lengths[c] == 0) {
                stacked = inBatch;
            }
            long[] shape = col.scalar() ? new long[]{stacked} : new long[]{stacked, lengths[c]};
            ByteBuffer b = batch[c].flip();
            writer.tensor(col.name(), col.dtype(), shape, b);
            tensors.add(new WrittenTensor(col.name(), col.dtype().name(), shape));
            bytes += b.remaining();
        }
        written.add(new WrittenFile(writeTo(writer), realRows, bytes, List.copyOf(tensors), List.of()));
        batch = null;
        inBatch = 0;
    }

    private String writeTo(SafetensorsWriter writer) throws IOException {
        java.nio.file.Path target = folder.next(".safetensors");
        writer.writeTo(target);
        return target.getFileName().toString();
    }

    @Override
    public WriterCommitMessage commit() throws IOException {
        if (inBatch > 0) {
            switch (options.shortBatch()) {
                case KEEP -> flush(inBatch);
                case PAD -> {
                    int real = inBatch;
                    for (ByteBuffer b : batch) {
                        b.position(b.limit());
                    }
                    inBatch = options.batchSize();
                    flush(real);
                }
                default -> {
                    batch = null;
                    inBatch = 0;
                }
            }
        }
        return folder.commit(written);
    }

    @Override
    public void abort() throws IOException {
        folder.delete();
    }

    @Override
    public void close() {
        batch = null;
    }
}
