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
import tools.jackson.core.JsonParser;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.TokenStreamFactory;
import tools.jackson.core.json.JsonFactory;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Validating a header held in memory, beside two baselines over the same bytes in the same run: a loop that only
 * counts the quotes (the memory loop limit: what any validator must at least read) and jackson-core's streaming
 * tokenizer (every token read and names decoded, nothing checked beyond JSON syntax, no numbers parsed).
 *
 * <p>G1 with its default region size and a 2 GB heap, because that is where a large header's reference tables
 * become humongous objects; the limits are raised so that 100,000 tensors run through the same code as 1,000.
 * {@link HeaderValidationReport} runs this class and prints the time per tensor, MB/s and the ratios.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseG1GC", "-Xms2g", "-Xmx2g"})
public class HeaderValidationBenchmark {
    /** Room for the largest header measured: 100,000 entries of about 130 bytes. */
    static final Limits RAISED = Limits.STRICT.toBuilder().maxEntries(200_000).maxHeaderBytes(64 << 20).build();

    @Param({"1000", "10000", "50000", "100000"})
    public int tensors;

    private byte[] header;
    private long fileSize;
    /**
     * Name canonicalization off: a per-parse symbol table of this many distinct names took jackson-core 1.6 s for
     * 50,000 tensors, which would measure that table rather than the tokenizer.
     */
    private final JsonFactory jackson = JsonFactory.builder()
            .disable(TokenStreamFactory.Feature.CANONICALIZE_PROPERTY_NAMES).build();

    @Setup(Level.Trial)
    public void setUp() {
        MoeHeaders.Header h = MoeHeaders.build(tensors);
        header = h.json();
        fileSize = h.fileSize();
    }

    @Benchmark
    public SafetensorsHeader validate() throws IOException {
        return Safetensors.parseHeader("bench", header, fileSize, RAISED);
    }

    @Benchmark
    public int baselineQuoteScan() {
        int quotes = 0;
        for (byte c : header) {
            if (c == '"') {
                quotes++;
            }
        }
        return quotes;
    }

    @Benchmark
    public int baselineJacksonTokens() {
        int tokens = 0;
        try (JsonParser p = jackson.createParser(ObjectReadContext.empty(), header)) {
            while (p.nextToken() != null) {
                tokens++;
            }
        }
        return tokens;
    }
}
