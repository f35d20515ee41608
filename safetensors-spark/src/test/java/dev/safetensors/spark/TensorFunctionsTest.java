package dev.safetensors.spark;

import dev.safetensors.DType;
import dev.safetensors.ErrorCode;
import dev.safetensors.ErrorCoded;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.core.Float32Narrowing;
import dev.safetensors.core.SafetensorsFile;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The SQL functions st_decode_float/double/long and st_encode, on their own and on the reader's rows. */
class TensorFunctionsTest {
    private static SparkSession spark;
    @TempDir
    static Path dir;
    private static Path file;

    @BeforeAll
    static void start() throws IOException {
        spark = LocalSpark.start();
        SafetensorsSpark.registerFunctions(spark);
        file = Fixtures.write(dir.resolve("m.safetensors"), 5);
    }

    private static Row one(String sql) {
        return spark.sql(sql).collectAsList().get(0);
    }

    @Test
    void encodingToBf16AndF16RoundsTiesToEven() {
        // 1 + 2^-8 lies halfway between two BF16 values, 1 + 3*2^-8 too: ties go to the even significand
        Row r = one("SELECT st_decode_float(st_encode(array(1.00390625F, 1.01171875F, -0.0F), 'BF16'), 'BF16',"
                + " array(3L))");
        assertEquals(List.of(1f, 1.015625f, -0f), r.getList(0));
        byte[] f16 = (byte[]) one("SELECT st_encode(array(1.00048828125D, 65520D), 'F16')").get(0);
        // 1 + 2^-11 rounds to 1.0 (0x3C00); 65520 is halfway to the next power of two: it overflows to +inf
        assertArrayEquals(new byte[]{0x00, 0x3c, 0x00, 0x7c}, f16);
    }

    @Test
    void integersAndDoublesRoundTrip() {
        Row r = one("SELECT st_decode_long(st_encode(array(-3, 7, 2147483647), 'I32'), 'I32', array(3L)),"
                + " st_decode_double(st_encode(array(0.1D, -2.5D), 'F64'), 'F64', null),"
                + " st_decode_long(st_encode(array(200L), 'U8'), 'U8', array(1L))");
        assertEquals(List.of(-3L, 7L, 2147483647L), r.getList(0));
        assertEquals(List.of(0.1, -2.5), r.getList(1));
        assertEquals(List.of(200L), r.getList(2));
    }

    @Test
    void decodingTheReadersBytesGivesWhatItsFloat32ReadingGives() {
        spark.read().format("safetensors").option("data", "binary").load(file.toString())
                .createOrReplaceTempView("binary_rows");
        spark.read().format("safetensors").option("data", "float32").load(file.toString())
                .createOrReplaceTempView("float_rows");
        List<Row> rows = spark.sql("SELECT b.tensor, st_decode_float(b.data, b.dtype, b.shape) = f.data"
                + " FROM binary_rows b JOIN float_rows f ON b.tensor = f.tensor WHERE b.dtype <> 'I64'")
                .collectAsList();
        assertEquals(2, rows.size());
        rows.forEach(r -> assertEquals(true, r.getBoolean(1), r.getString(0)));
        Row step = one("SELECT st_decode_long(data, dtype, shape) FROM binary_rows WHERE tensor = 'step'");
        assertEquals(List.of(5L), step.getList(0));
    }

    @Test
    void aSqlQueryCastsF32TensorsToBf16AndTheWriterWritesThem() throws IOException {
        spark.sql("CREATE OR REPLACE TEMPORARY VIEW model USING safetensors OPTIONS (path '" + file
                + "', data 'binary')");
        Path out = dir.resolve("bf16");
        spark.sql("SELECT tensor, 'BF16' AS dtype, shape, chunk,"
                        + " st_encode(st_decode_float(data, model.dtype, NULL), 'BF16') AS data"
                        + " FROM model WHERE model.dtype = 'F32'")
                .write().format("safetensors").option("layout", "checkpoint").save(out.toString());
        try (SafetensorsFile original = SafetensorsFile.open(file);
             SafetensorsFile cast = SafetensorsFile.open(out.resolve("model.safetensors"))) {
            assertEquals(DType.BF16, cast.header().tensor("embed.weight").orElseThrow().dtype());
            assertEquals(Float32Narrowing.narrow(DType.BF16, original.readFloat32("embed.weight")),
                    cast.readBytes("embed.weight"));
        }
    }

    @Test
    void failuresCarryTheirCodes() {
        assertEquals(ErrorCode.LENGTH_MISMATCH, codeOf(() -> one("SELECT st_decode_float(X'00000000', 'F32',"
                + " array(2L))")));
        assertEquals(ErrorCode.OVERFLOW, codeOf(() -> one("SELECT st_encode(array(300), 'U8')")));
        assertEquals(ErrorCode.NOT_FLOAT_READABLE, codeOf(() -> one("SELECT st_decode_float(X'01', 'U8', null)")));
        assertEquals(ErrorCode.UNSUPPORTED_DTYPE, codeOf(() -> one("SELECT st_encode(array(1.5D), 'I32')")));
    }

    @Test
    void shapesGetTheReadersArithmeticAndCodes() throws InvalidHeaderException {
        assertEquals(ErrorCode.OVERFLOW, codeOf(() -> one("SELECT st_decode_float(X'', 'F32',"
                + " array(4294967296L, 4294967296L))")));
        // 2^62 F32 elements are 2^64 bytes: no longer taken for the 0 bytes an unchecked product wraps to
        assertEquals(ErrorCode.OVERFLOW, codeOf(() -> TensorFunctions.decodeFloat(new byte[0], "F32",
                new long[]{1L << 62})));
        assertEquals(ErrorCode.LENGTH_MISMATCH, codeOf(() -> TensorFunctions.decodeLong(new byte[0], "U8",
                new long[]{1L << 59})), "2^59 bytes are not 0");
        assertEquals(ErrorCode.INVALID_NUMBER, codeOf(() -> TensorFunctions.decodeFloat(new byte[4], "F32",
                new long[]{-1, -1})));
        assertEquals(ErrorCode.OVERFLOW, codeOf(() -> TensorFunctions.decodeFloat(new byte[0], "F32",
                new long[]{1L << 40, 1L << 40, 0})), "as the reader: the overflow comes before the zero");
        assertEquals(0, TensorFunctions.decodeFloat(new byte[0], "F32", new long[]{0, 1L << 40, 1L << 40}).length);
    }

    @Test
    void aDoubleIsEncodedToF16AndBf16RoundingOnce() throws InvalidHeaderException {
        // through float32, 1 + 2^-11 + 2^-40 would land on the halfway point and go to even (1.0)
        assertArrayEquals(new byte[]{0x01, 0x3c}, TensorFunctions.encode(new Object[]{1 + 0x1p-11 + 0x1p-40}, "F16"));
        assertArrayEquals(new byte[]{(byte) 0x81, 0x3f},
                TensorFunctions.encode(new Object[]{1 + 0x1p-8 + 0x1p-40}, "BF16"));
        assertArrayEquals(new byte[]{0x00, 0x3c}, TensorFunctions.encode(new Object[]{1f + 0x1p-11f}, "F16"));
    }

    private static ErrorCode codeOf(org.junit.jupiter.api.function.Executable query) {
        Throwable e = assertThrows(Exception.class, query);
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof ErrorCoded coded) {
                return coded.code();
            }
        }
        throw new AssertionError("no coded failure in", e);
    }
}
