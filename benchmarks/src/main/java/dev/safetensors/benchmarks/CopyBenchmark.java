package dev.safetensors.benchmarks;

import dev.safetensors.DType;
import dev.safetensors.TensorInfo;
import dev.safetensors.core.SafetensorsFile;
import dev.safetensors.core.SafetensorsWriter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * {@code copyTensorTo} of one 256 MiB tensor from a page-cached local file into a channel that drops the bytes, beside
 * {@code FileChannel.transferTo} of the same bytes into the same channel. Throughput in MB/s is
 * {@code 256 MiB / time}; the target is at least 80 % of the baseline.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class CopyBenchmark {
    private static final int TENSOR_BYTES = 256 << 20;

    private Path path;
    private SafetensorsFile file;
    private FileChannel channel;
    private long position;
    private final DiscardingChannel sink = new DiscardingChannel();

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        path = Files.createTempFile("copy-benchmark-", ".safetensors");
        byte[] bytes = new byte[TENSOR_BYTES];
        ThreadLocalRandom.current().nextBytes(bytes);
        SafetensorsWriter.create().tensor("t", DType.U8, new long[] {TENSOR_BYTES}, bytes).writeTo(path);
        file = SafetensorsFile.open(path);
        TensorInfo t = file.header().tensor("t").orElseThrow();
        position = file.header().payloadOffset() + t.begin();
        channel = FileChannel.open(path, StandardOpenOption.READ);
        // read it once, so both sides find it in the page cache
        file.copyTensorTo("t", sink);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        file.close();
        channel.close();
        Files.deleteIfExists(path);
    }

    @Benchmark
    public long copyTensorTo() throws IOException {
        return file.copyTensorTo("t", sink);
    }

    @Benchmark
    public long baselineTransferTo() throws IOException {
        long done = 0;
        while (done < TENSOR_BYTES) {
            done += channel.transferTo(position + done, TENSOR_BYTES - done, sink);
        }
        return done;
    }
}
