package dev.safetensors.cli.arguments;

import dev.safetensors.core.ReadOptions;
import dev.safetensors.cli.output.Readable;

/**
 * The memory {@code --parallel} parts of {@code --part-size} bytes take while a remote tensor is fetched: each part
 * in flight holds a buffer of its size. A product above half the JVM's maximum heap is refused as a usage error that
 * gives both figures, rather than reduced behind the user's back: the user chose the figures, and a smaller one is a
 * one-word change (or a larger {@code -Xmx} through {@code JAVA_OPTS}).
 */
public final class PartMemory {
    private PartMemory() {
    }

    /**
     * @param options the read options the flags gave
     * @param maxHeap the JVM's maximum heap, {@link Runtime#maxMemory()}
     * @throws UsageException if the parts in flight would need more than half of {@code maxHeap}
     */
    public static void check(ReadOptions options, long maxHeap) {
        long need = (long) options.parallelism() * options.partSizeBytes();
        long budget = maxHeap / 2;
        if (need > budget) {
            throw new UsageException("--parallel " + options.parallelism() + " x --part-size "
                    + options.partSizeBytes() + " needs " + Readable.bytes(need) + " of part buffers, more than the "
                    + Readable.bytes(budget) + " this JVM can spare (half its " + Readable.bytes(maxHeap)
                    + " heap): lower one of them, or raise the heap with JAVA_OPTS=-Xmx...");
        }
    }
}
