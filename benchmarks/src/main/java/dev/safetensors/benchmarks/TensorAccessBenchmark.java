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
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Three ways to get at a 256 MiB tensor of a page-cached local file and read every byte of it (a sum of its longs,
 * the same consumer for all three): {@code map} (a zero-copy view of the memory mapping), {@code readBytes} into a
 * reused direct buffer (one copy), and, as the baseline, {@code FileChannel.read} of the same bytes into the same
 * direct buffer. Milliseconds per pass.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class TensorAccessBenchmark {
    private static final int TENSOR_BYTES = 256 << 20;

    private Path path;
    private SafetensorsFile file;
    private FileChannel channel;
    private long position;
    private ByteBuffer direct;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        path = Files.createTempFile("tensor-access-", ".safetensors");
        byte[] bytes = new byte[TENSOR_BYTES];
        new SplittableRandom(5).nextBytes(bytes);
        SafetensorsWriter.create().tensor("t", DType.U8, new long[] {TENSOR_BYTES}, bytes).writeTo(path);
        file = SafetensorsFile.open(path);
        TensorInfo t = file.header().tensor("t").orElseThrow();
        position = file.header().payloadOffset() + t.begin();
        channel = FileChannel.open(path, StandardOpenOption.READ);
        direct = ByteBuffer.allocateDirect(TENSOR_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        file.readBytes("t", direct.clear()); // into the page cache
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        file.close();
        channel.close();
        Files.deleteIfExists(path);
    }

    @Benchmark
    public long map() throws IOException {
        return sum(file.map("t"));
    }

    @Benchmark
    public long readBytesIntoDirect() throws IOException {
        direct.clear();
        file.readBytes("t", direct);
        return sum(direct.flip());
    }

    @Benchmark
    public long baselineFileChannelRead() throws IOException {
        direct.clear();
        while (direct.hasRemaining()) {
            if (channel.read(direct, position + direct.position()) < 0) {
                throw new IOException("short file");
            }
        }
        return sum(direct.flip());
    }

    private static long sum(ByteBuffer b) {
        long s = 0;
        int end = b.limit() & ~7;
        for (int i = b.position(); i < end; i += 8) {
            s += b.getLong(i);
        }
        return s;
    }
}
