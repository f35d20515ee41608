package dev.safetensors.spark;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.SafetensorsException;
import dev.safetensors.core.Checkpoint;
import dev.safetensors.core.SafetensorsFile;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the writer's tasks make of the numbers and names in rows: shapes get the reader's arithmetic and codes, a
 * name the header reserves or that is not UTF-8 is refused for what it is, and doubles narrow to F16 once. Driven
 * through the job's own writers, as Spark's tasks drive them.
 */
class WrittenRowChecksTest {
    private static final StructType TENSORS = new StructType().add("tensor", DataTypes.StringType)
            .add("dtype", DataTypes.StringType).add("shape", DataTypes.createArrayType(DataTypes.LongType, false))
            .add("data", DataTypes.BinaryType);
    @TempDir
    Path dir;

    private DataWriter<InternalRow> task(String folder, StructType schema, Map<String, String> more) {
        Map<String, String> options = new java.util.HashMap<>(more);
        options.put("path", dir.resolve(folder).toString());
        options.put(WriteOptions.SAVE_MODE, "create");
        DataWriterFactory factory = new SafetensorsBatchWrite(WriteOptions.parse(options), schema)
                .createBatchWriterFactory(null);
        return factory.createWriter(0, 0);
    }

    private static InternalRow tensorRow(String name, long[] shape, byte[] data) {
        return new GenericInternalRow(new Object[]{UTF8String.fromString(name), UTF8String.fromString("F32"),
                ArrayData.toArrayData(shape), data});
    }

    private static ErrorCode refused(DataWriter<InternalRow> task, InternalRow row) {
        return assertThrows(SafetensorsException.class, () -> {
            task.write(row);
            task.commit();
        }).code();
    }

    @Test
    void aCheckpointShapeWhoseCountOverflowsIsOverflowAsTheReaderSays() {
        long two32 = 1L << 32;
        long two40 = 1L << 40;
        DataWriter<InternalRow> task = task("overflow", TENSORS, Map.of("layout", "checkpoint"));
        assertEquals(ErrorCode.OVERFLOW, refused(task, tensorRow("w", new long[]{two32, two32}, new byte[0])));
        // the reader folds left to right as the official crate does: the overflow comes before the zero
        DataWriter<InternalRow> zeroLast = task("zero-last", TENSORS, Map.of("layout", "checkpoint"));
        assertEquals(ErrorCode.OVERFLOW, refused(zeroLast, tensorRow("w", new long[]{two40, two40, 0},
                new byte[0])));
        DataWriter<InternalRow> negative = task("negative", TENSORS, Map.of("layout", "checkpoint"));
        assertEquals(ErrorCode.INVALID_NUMBER, refused(negative, tensorRow("w", new long[]{-1, -1}, new byte[4])));
    }

    @Test
    void aZeroElementShapeTheReaderAcceptsIsWrittenAndReadBack() throws IOException {
        long two40 = 1L << 40;
        SafetensorsBatchWrite job = new SafetensorsBatchWrite(WriteOptions.parse(Map.of("path",
                dir.resolve("empty").toString(), "layout", "checkpoint", WriteOptions.SAVE_MODE, "create")), TENSORS);
        DataWriter<InternalRow> task = job.createBatchWriterFactory(null).createWriter(0, 0);
        task.write(tensorRow("empty", new long[]{0, two40, two40}, new byte[0]));
        job.commit(new org.apache.spark.sql.connector.write.WriterCommitMessage[]{task.commit()});
        try (Checkpoint c = Checkpoint.open(dir.resolve("empty/model.safetensors"))) {
            assertArrayEquals(new long[]{0, two40, two40}, c.tensor("empty").shape());
            assertEquals(0, c.tensor("empty").elementCount());
        }
    }

    @Test
    void aKeyOrColumnNamedMetadataIsRefusedForItsName() {
        StructType keyed = new StructType().add("id", DataTypes.StringType)
                .add("v", DataTypes.createArrayType(DataTypes.FloatType, false));
        DataWriter<InternalRow> task = task("keyed", keyed, Map.of("layout", "keyed", "key", "id"));
        SafetensorsException e = assertThrows(SafetensorsException.class, () -> {
            task.write(new GenericInternalRow(new Object[]{UTF8String.fromString("__metadata__"),
                    ArrayData.toArrayData(new float[]{1f})}));
            task.commit();
        });
        assertEquals(ErrorCode.INVALID_METADATA, e.code());
        assertTrue(e.getMessage().contains("reserved") && !e.getMessage().contains("shape"), e.getMessage());
        StructType column = new StructType().add("__metadata__", DataTypes.createArrayType(DataTypes.FloatType,
                false));
        DataWriter<InternalRow> samples = task("samples", column, Map.of("layout", "samples", "batchSize", "1"));
        SafetensorsException c = assertThrows(SafetensorsException.class, () -> {
            samples.write(new GenericInternalRow(new Object[]{ArrayData.toArrayData(new float[]{1f})}));
            samples.commit();
        });
        assertEquals(ErrorCode.INVALID_METADATA, c.code());
        assertTrue(c.getMessage().contains("reserved") && !c.getMessage().contains("shape"), c.getMessage());
    }

    @Test
    void aKeyOrTensorNameHoldingAnEncodedLoneSurrogateIsRefusedNotWrittenAsAReplacement() {
        // "a", U+D800 in the three bytes a lenient encoder gives it, "b": Spark keeps a string's bytes as they are
        byte[] lone = {'a', (byte) 0xed, (byte) 0xa0, (byte) 0x80, 'b'};
        StructType keyed = new StructType().add("id", DataTypes.StringType)
                .add("v", DataTypes.createArrayType(DataTypes.FloatType, false));
        DataWriter<InternalRow> task = task("lone", keyed, Map.of("layout", "keyed", "key", "id"));
        InvalidHeaderException e = assertThrows(InvalidHeaderException.class, () -> task.write(
                new GenericInternalRow(new Object[]{UTF8String.fromBytes(lone), ArrayData.toArrayData(new float[]{1f})})));
        assertEquals(ErrorCode.INVALID_UTF8, e.code());
        DataWriter<InternalRow> checkpoint = task("lone-tensor", TENSORS, Map.of("layout", "checkpoint"));
        InvalidHeaderException t = assertThrows(InvalidHeaderException.class, () -> checkpoint.write(
                new GenericInternalRow(new Object[]{UTF8String.fromBytes(lone), UTF8String.fromString("F32"),
                        ArrayData.toArrayData(new long[]{1}), new byte[4]})));
        assertEquals(ErrorCode.INVALID_UTF8, t.code());
        assertFalse(t.getMessage().contains("a?b") || t.getMessage().contains("a\ufffdb"), t.getMessage());
    }

    @Test
    void doublesNarrowToF16OnceAsNumPyDoes() throws IOException {
        StructType keyed = new StructType().add("id", DataTypes.StringType)
                .add("v", DataTypes.createArrayType(DataTypes.DoubleType, false));
        SafetensorsBatchWrite job = new SafetensorsBatchWrite(WriteOptions.parse(Map.of("path",
                dir.resolve("f16").toString(), "layout", "keyed", "key", "id", "dtype", "F16",
                WriteOptions.SAVE_MODE, "create")), keyed);
        DataWriter<InternalRow> task = job.createBatchWriterFactory(null).createWriter(0, 0);
        // 1 + 2^-11 + 2^-40: through float32 it lands on the halfway point 1 + 2^-11 and goes to even, 1.0
        task.write(new GenericInternalRow(new Object[]{UTF8String.fromString("k"),
                ArrayData.toArrayData(new double[]{1 + 0x1p-11 + 0x1p-40, 1 + 0x1p-11})}));
        job.commit(new org.apache.spark.sql.connector.write.WriterCommitMessage[]{task.commit()});
        try (SafetensorsFile f = SafetensorsFile.open(dir.resolve("f16/part-00000.safetensors"))) {
            assertEquals(DType.F16, f.header().tensor("k").orElseThrow().dtype());
            ByteBuffer b = f.readBytes("k").order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(0x3c01, b.getShort(0), "rounded up, once, from the double");
            assertEquals(0x3c00, b.getShort(2), "an exact tie still goes to even");
        }
    }
}
