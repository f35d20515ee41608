package dev.safetensors.benchmarks;

import dev.safetensors.DType;
import dev.safetensors.Limits;
import dev.safetensors.core.ReadOptions;
import dev.safetensors.core.SafetensorsFile;
import dev.safetensors.core.SafetensorsWriter;
import dev.safetensors.fixtures.MemorySource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * {@code readFloat32} of a 16 Mi-element BF16 or F16 tensor into a reused buffer, from an in-memory source
 * ({@code source=memory}, one stream) and from a page-cached local file ({@code source=file}, widened out of the
 * memory mapping), run one after the other for each dtype, beside a straightforward per-element baseline over the
 * same bytes ({@code ByteBuffer.getShort} and a textbook conversion). Scores are elements per second; the file
 * path's goal is within 10 % of the in-memory one.
 *
 * <p>The values are typical weights: normal numbers between 2^-10 and 2^-1 of either sign, random significands.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class WideningBenchmark {
    private static final int ELEMENTS = 16 << 20;

    @Param({"BF16", "F16"})
    public String dtype;

    @Param({"memory", "file"})
    public String source;

    private SafetensorsFile file;
    private SafetensorsFile local;
    private Path path;
    private ByteBuffer raw;
    private final float[] out = new float[ELEMENTS];
    private final FloatBuffer outBuffer = FloatBuffer.wrap(out);

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        DType type = DType.valueOf(dtype);
        raw = ByteBuffer.allocate(2 * ELEMENTS).order(ByteOrder.LITTLE_ENDIAN);
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < ELEMENTS; i++) {
            int sign = random.nextInt(2) << 15;
            raw.putShort((short) (type == DType.BF16
                    ? sign | (127 - 1 - random.nextInt(10)) << 7 | random.nextInt(1 << 7)
                    : sign | (15 - 1 - random.nextInt(10)) << 10 | random.nextInt(1 << 10)));
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(2 * ELEMENTS + 256);
        SafetensorsWriter.create().tensor("t", type, new long[] {ELEMENTS}, raw.flip()).writeTo(bytes);
        // one stream, as a remote source read with parallelism 1: the in-memory side is the widening loop's limit
        file = SafetensorsFile.open(new MemorySource("memory", bytes.toByteArray()), Limits.STRICT, true,
                ReadOptions.builder().parallelism(1).build());
        path = Files.createTempFile("widening-", ".safetensors");
        Files.write(path, bytes.toByteArray());
        local = SafetensorsFile.open(path);
        local.readFloat32("t", outBuffer.clear()); // into the page cache
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        file.close();
        local.close();
        Files.deleteIfExists(path);
    }

    @Benchmark
    @OperationsPerInvocation(ELEMENTS)
    public float[] readFloat32() throws IOException {
        (source.equals("file") ? local : file).readFloat32("t", outBuffer.clear());
        return out;
    }

    @Benchmark
    @OperationsPerInvocation(ELEMENTS)
    public float[] baselinePerElement() {
        boolean bf16 = dtype.equals("BF16");
        for (int i = 0; i < ELEMENTS; i++) {
            short s = raw.getShort(2 * i);
            out[i] = bf16 ? Float.intBitsToFloat((s & 0xffff) << 16) : naiveF16(s);
        }
        return out;
    }

    /** The textbook binary16 decoding: fields, then the value in double arithmetic. */
    private static float naiveF16(short h) {
        int sign = h >> 15 & 1;
        int exponent = h >> 10 & 0x1f;
        int significand = h & 0x3ff;
        double value;
        if (exponent == 0x1f) {
            value = significand == 0 ? Double.POSITIVE_INFINITY : Double.NaN;
        } else if (exponent == 0) {
            value = Math.pow(2, -14) * (significand / 1024.0);
        } else {
            value = Math.pow(2, exponent - 15) * (1 + significand / 1024.0);
        }
        return (float) (sign == 1 ? -value : value);
    }
}
