package dev.safetensors.benchmarks;

import dev.safetensors.DType;
import dev.safetensors.Limits;
import dev.safetensors.core.ReadOptions;
import dev.safetensors.core.SafetensorsFile;
import dev.safetensors.core.SafetensorsWriter;
import dev.safetensors.core.Sources;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * {@code copyTensorTo} of a 256 MiB tensor through the HTTP backend from a loopback server that caps every response at
 * {@value #BYTES_PER_SECOND} bytes/s after {@value #LATENCY_MILLIS} ms, as stores throttle per connection: one stream
 * ({@code parallelism = 1}) against the default parts ({@value ReadOptions#DEFAULT_PARALLELISM} x
 * {@value ReadOptions#DEFAULT_PART_SIZE_BYTES} bytes). Seconds per copy; the goal is at least 3x.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ParallelDownloadBenchmark {
    static final long BYTES_PER_SECOND = 16_000_000;
    static final long LATENCY_MILLIS = 20;
    private static final int TENSOR_BYTES = 256 << 20;

    @Param({"1", "4"})
    public int parallelism;

    private Path path;
    private ThrottledFileServer server;
    private SafetensorsFile file;
    private final DiscardingChannel sink = new DiscardingChannel();

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        path = Files.createTempFile("parallel-download-", ".safetensors");
        byte[] bytes = new byte[TENSOR_BYTES];
        new SplittableRandom(1).nextBytes(bytes);
        SafetensorsWriter.create().tensor("t", DType.U8, new long[] {TENSOR_BYTES}, bytes).writeTo(path);
        server = new ThrottledFileServer(path, BYTES_PER_SECOND, LATENCY_MILLIS);
        ReadOptions options = ReadOptions.builder().parallelism(parallelism).build();
        file = SafetensorsFile.open(Sources.open(server.uri().toString()), Limits.STRICT, true, options);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        file.close();
        server.close();
        Files.deleteIfExists(path);
    }

    @Benchmark
    public long copyTensorTo() throws IOException {
        return file.copyTensorTo("t", sink);
    }
}
