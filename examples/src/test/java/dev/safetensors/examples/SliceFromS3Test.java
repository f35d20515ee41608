package dev.safetensors.examples;

import dev.safetensors.DType;
import dev.safetensors.core.SafetensorsWriter;
import dev.safetensors.fixtures.LoopbackS3;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SliceFromS3} against s3proxy (the test JVM's shared {@link LoopbackS3}, in which this class writes a key of
 * its own): a row range of a 1 MiB matrix costs the header GET and one ranged GET. Both runs share one child JVM with
 * {@link InspectS3Test}'s ({@link S3ExampleRuns}).
 */
class SliceFromS3Test {
    private static final int ROWS = 1024;
    private static final int COLUMNS = 256;
    private static final String MATRIX = "s3://models/matrix.safetensors";
    private static String endpoint;
    private static long headerBytes;

    /**
     * Writes this class's matrix to the shared server, before {@link S3ExampleRuns} runs the examples.
     *
     * @param s3 the shared server
     * @throws IOException never, in memory
     */
    static void putObjects(LoopbackS3 s3) throws IOException {
        // element (r, c) is r + c / 1000, so the rows printed are easy to check
        ByteBuffer values = ByteBuffer.allocate(ROWS * COLUMNS * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int r = 0; r < ROWS; r++) {
            for (int c = 0; c < COLUMNS; c++) {
                values.putFloat(r + c / 1000f);
            }
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        long size = SafetensorsWriter.create().tensor("w", DType.F32, new long[] {ROWS, COLUMNS}, values.flip())
                .writeTo(bytes);
        headerBytes = size - ROWS * COLUMNS * 4L;
        s3.put("models", "matrix.safetensors", bytes.toByteArray());
    }

    /**
     * @param endpoint the shared server's
     * @return this class's runs: rows 600 to 602, then rows past the end
     */
    static List<ExampleProcess.Invocation> invocations(String endpoint) {
        return List.of(slice("600", "602", endpoint), slice("1000", "1100", endpoint));
    }

    private static ExampleProcess.Invocation slice(String from, String to, String endpoint) {
        return new ExampleProcess.Invocation(SliceFromS3.class, MATRIX, "w", from, to, endpoint);
    }

    @BeforeAll
    static void start() throws Exception {
        endpoint = S3ExampleRuns.run();
    }

    @Test
    void aRowRangeCostsOneRangedGetAfterTheHeader() {
        ExampleProcess.Result r = S3ExampleRuns.result(slice("600", "602", endpoint));
        assertEquals(0, r.exitCode(), r.stderr());
        assertTrue(r.stdout().startsWith("w[600:602] of [1024, 256] -> shape [2, 256], 512 floats, first [600.0,"
                + " 600.001, 600.002, 600.003]"), r.stdout());
        // the 128 KiB prefix read with the header, then exactly the 2 rows of 1 KiB
        assertTrue(r.stdout().contains("cost: 2 requests, " + (128 * 1024 + 2 * COLUMNS * 4) + " bytes"),
                r.stdout() + " (header " + headerBytes + " bytes)");
    }

    @Test
    void rowsOutsideTheTensorAreAnInvalidSlice() {
        ExampleProcess.Result r = S3ExampleRuns.result(slice("1000", "1100", endpoint));
        assertEquals(1, r.exitCode(), r.stdout());
        assertTrue(r.stderr().contains("TensorAccessException") && r.stderr().contains("[INVALID_SLICE]"),
                r.stderr());
    }
}
