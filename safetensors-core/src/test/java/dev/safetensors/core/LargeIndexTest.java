package dev.safetensors.core;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

import java.io.BufferedWriter;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.IdentityHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A generated 60 MB, 200,000-tensor index (the size of the largest MoE indexes, Kimi-K3's about 60 MB) read by the
 * one streaming parser from a file, against the baseline of the same index held in memory as one byte array first
 * (what reading it whole, as before, costs). Prints parse time, peak heap over the parse and the heap the parsed
 * index retains; asserts the parse and that each of the 100 shard names is held once. Figures go to the report and
 * to docs/hub.md; they are not asserted, being machine-dependent.
 *
 * <p>Slow tier ({@code -Pslow}): a 60 MB index generated and parsed twice, for the figures it prints.
 *
 * <p>Alone ({@code @Isolated}): it measures the heap.
 */
@Tag("slow")
@Isolated
class LargeIndexTest {
    private static final int TENSORS = 200_000;
    private static final int SHARDS = 100;

    @TempDir
    Path dir;

    private Path generate() throws IOException {
        Path p = dir.resolve("model.safetensors.index.json");
        String pad = "x".repeat(220);
        try (BufferedWriter w = Files.newBufferedWriter(p, StandardCharsets.UTF_8)) {
            w.write("{\n  \"metadata\": {\"total_size\": 0},\n  \"weight_map\": {\n");
            for (int i = 0; i < TENSORS; i++) {
                w.write("    \"model.layers." + (i / 2000) + ".mlp.experts." + (i % 2000) + "." + pad
                        + ".weight\": \"model-" + String.format("%05d", 1 + i % SHARDS) + "-of-00100.safetensors\""
                        + (i + 1 < TENSORS ? ",\n" : "\n"));
            }
            w.write("  }\n}\n");
        }
        return p;
    }

    @Test
    void aSixtyMegabyteIndexStreamsWithEachShardNameHeldOnce() throws Exception {
        Path p = generate();
        long size = Files.size(p);
        assertTrue(size >= 60_000_000 && size <= dev.safetensors.CheckpointLimits.DEFAULT_MAX_INDEX_BYTES, size + " bytes");

        // baseline: the whole index in one byte array, then parsed
        Measured baseline = measure(() -> ShardIndex.parse(p.toString(), Files.readAllBytes(p)));
        Measured streamed = measure(() -> {
            try (FileSource source = FileSource.open(p)) {
                return ShardIndex.read(source);
            }
        });
        ShardIndex index = streamed.index;
        assertEquals(TENSORS, index.weightMap().size());
        assertEquals(SHARDS, index.shards().size());
        Map<String, Boolean> distinct = new IdentityHashMap<>();
        for (String shard : index.weightMap().values()) {
            distinct.put(shard, Boolean.TRUE);
        }
        assertEquals(SHARDS, distinct.size(), "each shard name is one String instance");

        System.out.printf("LargeIndexTest: %,d bytes, %,d tensors, %d shards%n", size, TENSORS, SHARDS);
        System.out.printf("  streamed from the file: %,d ms, peak heap %,d MiB, retained %,d MiB%n",
                streamed.millis, streamed.peak >> 20, streamed.retained >> 20);
        System.out.printf("  baseline (bytes first): %,d ms, peak heap %,d MiB, retained %,d MiB%n",
                baseline.millis, baseline.peak >> 20, baseline.retained >> 20);
    }

    private interface Parse {
        ShardIndex run() throws IOException;
    }

    private record Measured(ShardIndex index, long millis, long peak, long retained) {
    }

    /** Peak: the sum of the heap pools' peaks over the parse, above the heap in use before it. */
    private static Measured measure(Parse parse) throws IOException {
        settle();
        long before = used();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                pool.resetPeakUsage();
            }
        }
        long start = System.nanoTime();
        ShardIndex index = parse.run();
        long millis = (System.nanoTime() - start) / 1_000_000;
        long peak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        settle();
        long retained = used() - before;
        return new Measured(index, millis, peak - before, retained);
    }

    private static long used() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static void settle() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
    }
}
