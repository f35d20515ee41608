package dev.safetensors.examples;

import dev.safetensors.DType;
import dev.safetensors.core.SafetensorsWriter;
import dev.safetensors.fixtures.LoopbackS3;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SliceFromS3} against s3proxy (the test JVM's shared {@link LoopbackS3}, in which this class writes a key of
 * its own): a row range of a 1 MiB matrix costs the header GET and one ranged GET. Both runs share one child JVM
 * ({@link ExampleProcess#runAll}).
 */
class SliceFromS3Test {
    private static final String ACCESS_KEY = LoopbackS3.ACCESS_KEY;
    private static final String SECRET_KEY = LoopbackS3.SECRET_KEY;
    private static final int ROWS = 1024;
    private static final int COLUMNS = 256;
    private static final String MATRIX = "s3://models/matrix.safetensors";

    @TempDir
    static Path bucket;
    private static String endpoint;
    private static long headerBytes;
    private static List<ExampleProcess.Result> results;

    @BeforeAll
    static void start() throws Exception {
        // element (r, c) is r + c / 1000, so the rows printed are easy to check
        ByteBuffer values = ByteBuffer.allocate(ROWS * COLUMNS * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int r = 0; r < ROWS; r++) {
            for (int c = 0; c < COLUMNS; c++) {
                values.putFloat(r + c / 1000f);
            }
        }
        long size = SafetensorsWriter.create().tensor("w", DType.F32, new long[] {ROWS, COLUMNS}, values.flip())
                .writeTo(bucket.resolve("matrix.safetensors"));
        headerBytes = size - ROWS * COLUMNS * 4L;

        LoopbackS3 s3 = LoopbackS3.shared();
        s3.putFiles("models", bucket);
        endpoint = s3.endpoint().toString();
        results = ExampleProcess.runAll(Map.of("AWS_ACCESS_KEY_ID", ACCESS_KEY, "AWS_SECRET_ACCESS_KEY", SECRET_KEY,
                "AWS_REGION", "us-east-1"), List.of(
                new ExampleProcess.Invocation(SliceFromS3.class, MATRIX, "w", "600", "602", endpoint),
                new ExampleProcess.Invocation(SliceFromS3.class, MATRIX, "w", "1000", "1100", endpoint)), i -> { });
    }

    @Test
    void aRowRangeCostsOneRangedGetAfterTheHeader() {
        ExampleProcess.Result r = results.get(0);
        assertEquals(0, r.exitCode(), r.stderr());
        assertTrue(r.stdout().startsWith("w[600:602] of [1024, 256] -> shape [2, 256], 512 floats, first [600.0,"
                + " 600.001, 600.002, 600.003]"), r.stdout());
        // the 128 KiB prefix read with the header, then exactly the 2 rows of 1 KiB
        assertTrue(r.stdout().contains("cost: 2 requests, " + (128 * 1024 + 2 * COLUMNS * 4) + " bytes"),
                r.stdout() + " (header " + headerBytes + " bytes)");
    }

    @Test
    void rowsOutsideTheTensorAreAnInvalidSlice() {
        ExampleProcess.Result r = results.get(1);
        assertEquals(1, r.exitCode(), r.stdout());
        assertTrue(r.stderr().contains("TensorAccessException") && r.stderr().contains("[INVALID_SLICE]"),
                r.stderr());
    }
}
