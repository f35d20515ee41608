package dev.safetensors.benchmarks;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.List;

/**
 * A JMH profiler ({@code -prof dev.safetensors.benchmarks.ProcessCpuProfiler}) that reports the CPU time of the
 * whole benchmark JVM per operation: the benchmark thread, the garbage collector's threads and the compiler's.
 * On a machine shared with other work, wall-clock time per operation grows with the load while CPU time barely
 * does, and the collector's share, which wall-clock time on an idle machine partly hides on other cores, counts.
 */
public final class ProcessCpuProfiler implements InternalProfiler {
    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private long startNanos;

    @Override
    public String getDescription() {
        return "CPU time of all the benchmark JVM's threads per operation";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        startNanos = os.getProcessCpuTime();
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams,
                                                       IterationParams iterationParams, IterationResult result) {
        long ops = result.getMetadata().getAllOps();
        if (ops == 0) {
            return List.of();
        }
        // nanoseconds: an operation of a throughput benchmark may be one element
        double nanosPerOp = (double) (os.getProcessCpuTime() - startNanos) / ops;
        return List.of(new ScalarResult("cpu.time.norm", nanosPerOp, "ns/op", AggregationPolicy.AVG));
    }
}
