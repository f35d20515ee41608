package dev.safetensors.benchmarks;

import dev.safetensors.DType;
import dev.safetensors.core.SafetensorsFile;
import dev.safetensors.core.SafetensorsWriter;
import dev.safetensors.Slice;
import dev.safetensors.core.TensorSlice;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Slices of a 8192 x 8192 F32 tensor (256 MiB) of a page-cached local file, read into a reused direct buffer: 1 %,
 * 10 % and 100 % of it, as a range of rows (one run) or of columns (one run per row). The 100 % slice is the whole
 * tensor and the baseline for the others. Milliseconds per slice.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class SliceBenchmark {
    private static final int SIDE = 8192;

    @Param({"1", "10", "100"})
    public int percent;

    @Param({"rows", "columns"})
    public String axis;

    private Path path;
    private SafetensorsFile file;
    private TensorSlice slice;
    private ByteBuffer direct;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        path = Files.createTempFile("slice-", ".safetensors");
        byte[] bytes = new byte[SIDE * SIDE * 4];
        new SplittableRandom(9).nextBytes(bytes);
        SafetensorsWriter.create().tensor("w", DType.F32, new long[] {SIDE, SIDE}, bytes).writeTo(path);
        file = SafetensorsFile.open(path);
        int n = SIDE * percent / 100;
        slice = axis.equals("rows") ? file.slice("w", Slice.range(0, n))
                : file.slice("w", Slice.all(), Slice.range(0, n));
        direct = ByteBuffer.allocateDirect(SIDE * SIDE * 4);
        file.readBytes("w", direct); // into the page cache
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        file.close();
        Files.deleteIfExists(path);
    }

    @Benchmark
    public long readSlice() throws IOException {
        direct.clear();
        return slice.readBytes(direct);
    }
}
