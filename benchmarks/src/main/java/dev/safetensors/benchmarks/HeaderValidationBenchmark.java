package dev.safetensors.benchmarks;

import dev.safetensors.Limits;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.core.Safetensors;
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
import org.openjdk.jmh.annotations.Warmup;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Validating a header held in memory, beside Jackson databind's {@code readTree} on the same bytes (a baseline that
 * builds a tree and validates nothing). Throughput in MB/s is {@code headerBytes / time}; run with {@code -prof gc}
 * for bytes allocated per operation (divide by {@code headerBytes} for bytes per header byte).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class HeaderValidationBenchmark {

    @Param({"300", "5000", "50000"})
    public int tensors;

    private byte[] header;
    private long fileSize;
    private final ObjectMapper mapper = new ObjectMapper();

    @Setup(Level.Trial)
    public void setUp() {
        MoeHeaders.Header h = MoeHeaders.build(tensors);
        header = h.json();
        fileSize = h.fileSize();
        System.out.printf("%n[header] tensors=%d headerBytes=%d%n", tensors, header.length);
    }

    @Benchmark
    public SafetensorsHeader validate() throws IOException {
        return Safetensors.parseHeader("bench", header, fileSize, Limits.DEFAULT);
    }

    @Benchmark
    public JsonNode baselineReadTree() {
        return mapper.readTree(header);
    }
}
