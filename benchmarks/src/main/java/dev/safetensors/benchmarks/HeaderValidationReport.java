package dev.safetensors.benchmarks;

import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

import java.util.Map;
import java.util.TreeMap;

/**
 * Runs {@link HeaderValidationBenchmark} (any JMH options may be given, e.g. {@code -f 1 -wi 3 -i 5 -prof gc}) and
 * prints, per header size, the time per tensor, the throughput and the ratios to the two baselines of the same run,
 * which JMH's own table leaves to arithmetic. With {@code -prof dev.safetensors.benchmarks.ProcessCpuProfiler} the
 * figures are CPU time of the whole JVM (collector included), which a loaded machine disturbs far less.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar dev.safetensors.benchmarks.HeaderValidationReport -f 1 -wi 3 -i 5</pre>
 */
public final class HeaderValidationReport {
    private HeaderValidationReport() {
    }

    /**
     * @param args JMH command-line options
     * @throws CommandLineOptionException when JMH does not accept the options
     * @throws RunnerException when a benchmark fails
     */
    public static void main(String[] args) throws CommandLineOptionException, RunnerException {
        var options = new OptionsBuilder().parent(new CommandLineOptions(args))
                .include(HeaderValidationBenchmark.class.getName() + "\\.").build();
        // tensors -> benchmark method -> result
        Map<Integer, Map<String, RunResult>> bySize = new TreeMap<>();
        for (RunResult r : new Runner(options).run()) {
            String method = r.getParams().getBenchmark();
            method = method.substring(method.lastIndexOf('.') + 1);
            bySize.computeIfAbsent(Integer.parseInt(r.getParams().getParam("tensors")), k -> new TreeMap<>())
                    .put(method, r);
        }
        boolean cpu = bySize.values().stream().anyMatch(m -> m.values().stream()
                .anyMatch(r -> secondary(r, "cpu.time.norm") != null));
        String time = cpu ? "CPU µs" : "µs";
        System.out.println();
        System.out.println("| tensors | header bytes | validate wall-clock µs | validate " + time + " | " + time.replace("µs", "ns")
                + " per tensor | MB/s | bytes allocated per header byte | quote scan " + time + " | jackson-core tokens "
                + time + " | validate / quote scan | validate / jackson |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|");
        for (var e : bySize.entrySet()) {
            int tensors = e.getKey();
            long bytes = MoeHeaders.build(tensors).json().length;
            Map<String, RunResult> results = e.getValue();
            double validate = time(results.get("validate"), cpu);
            double quotes = time(results.get("baselineQuoteScan"), cpu);
            double jackson = time(results.get("baselineJacksonTokens"), cpu);
            Result alloc = secondary(results.get("validate"), "gc.alloc.rate.norm");
            System.out.printf("| %,d | %,d | %s | %.1f | %.0f | %.0f | %s | %.1f | %.1f | %.1fx | %.2fx |%n", tensors,
                    bytes, wall(results.get("validate")), validate, validate * 1000 / tensors, bytes / validate,
                    alloc == null ? "(run with -prof gc)" : String.format("%.2f", alloc.getScore() / bytes), quotes,
                    jackson, validate / quotes, validate / jackson);
        }
    }

    private static String wall(RunResult r) {
        return r == null ? "-" : String.format("%.1f ± %.1f", r.getPrimaryResult().getScore(),
                r.getPrimaryResult().getScoreError());
    }

    /** @return the CPU time per operation when asked for and measured, else the primary (wall-clock) score */
    private static double time(RunResult r, boolean cpu) {
        if (r == null) {
            return Double.NaN;
        }
        Result c = cpu ? secondary(r, "cpu.time.norm") : null;
        // the profiler reports nanoseconds, the benchmark microseconds
        return c != null ? c.getScore() / 1000 : r.getPrimaryResult().getScore();
    }

    private static Result secondary(RunResult r, String suffix) {
        if (r == null) {
            return null;
        }
        for (var e : r.getSecondaryResults().entrySet()) {
            if (e.getKey().endsWith(suffix)) {
                return e.getValue();
            }
        }
        return null;
    }
}
