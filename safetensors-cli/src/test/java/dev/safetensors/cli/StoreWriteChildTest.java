package dev.safetensors.cli;

import dev.safetensors.fixtures.ChildJvm;
import dev.safetensors.fixtures.LoopbackS3;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A 2 GiB checkpoint resharded into s3proxy (over a folder, so the store holds nothing in memory) by a child JVM
 * under {@code -Xmx256m}: the heap bound is what is under test, since an upload holds at most parallelism x part
 * size of its content whatever the checkpoint's size. It reports the requests the store served by kind (the blob
 * store's calls, one per request of that kind), the wall time and the throughput, for benchmarks/README.md; it
 * asserts the objects, their order, and the request counts the protocol predicts, never a time.
 */
@Tag("slow")
class StoreWriteChildTest {
    private static final int TENSORS = 8;
    private static final long TENSOR_BYTES = 256L << 20;
    private static final long PART = 8L << 20;

    @TempDir
    Path dir;

    @Test
    void twoGibibytesGoToS3InASmallHeapWithTheRequestsThePlanPredicts() throws Exception {
        StringBuilder json = new StringBuilder("{");
        for (int i = 0; i < TENSORS; i++) {
            json.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT,
                    "\"t%d\":{\"dtype\":\"U8\",\"shape\":[%d],\"data_offsets\":[%d,%d]}", i, TENSOR_BYTES,
                    i * TENSOR_BYTES, (i + 1) * TENSOR_BYTES));
        }
        Path source = Fixtures.sparse(dir.resolve("big.safetensors"), json.append('}').toString(),
                TENSORS * TENSOR_BYTES);
        Files.createDirectories(dir.resolve("store/bench"));
        try (LoopbackS3 s3 = LoopbackS3.overFolder(dir.resolve("store"))) {
            List<String> command = new ArrayList<>(ChildJvm.command("-Xmx256m", "-cp", ChildJvm.testClassPath(),
                    Main.class.getName(), "reshard", source.toString(), "--out", "s3://bench/out/",
                    "--max-shard-size", "600MB", "--parallel", "4", "--part-size", "8MiB", "--s3-endpoint",
                    s3.endpoint().toString(), "--s3-path-style"));
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("log.txt").toFile());
            builder.environment().putAll(Map.of("AWS_ACCESS_KEY_ID", LoopbackS3.ACCESS_KEY,
                    "AWS_SECRET_ACCESS_KEY", LoopbackS3.SECRET_KEY, "AWS_REGION", "us-east-1",
                    "AWS_EC2_METADATA_DISABLED", "true"));
            SortedMap<String, Long> before = s3.calls();
            long start = System.nanoTime();
            Process p = builder.start();
            try {
                assertTrue(p.waitFor(20, TimeUnit.MINUTES), "the child ends");
            } finally {
                p.destroyForcibly();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            String log = Files.readString(dir.resolve("log.txt"), StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), log);
            SortedMap<String, Long> asked = new TreeMap<>();
            s3.calls().forEach((k, v) -> {
                long n = v - before.getOrDefault(k, 0L);
                if (n > 0) {
                    asked.put(k, n);
                }
            });
            List<String> shards = List.of("model-00001-of-00004.safetensors", "model-00002-of-00004.safetensors",
                    "model-00003-of-00004.safetensors", "model-00004-of-00004.safetensors");
            List<String> expected = new ArrayList<>();
            shards.forEach(s -> expected.add("complete out/" + s));
            expected.add("put out/model.safetensors.index.json");
            // jclouds' filesystem store completes a multipart upload through a blob of its own, named by a UUID
            assertEquals(expected, s3.mutations("bench").stream().filter(m -> m.contains(" out/")).toList(),
                    "every shard completed before the index was put");
            // each shard: 512 MiB of tensors and its header, so 64 full parts and one short part
            long partsPerShard = (2 * TENSOR_BYTES) / PART + 1;
            assertEquals(4 * partsPerShard, asked.get("uploadMultipartPart"), asked.toString());
            assertEquals(4L, asked.get("initiateMultipartUpload"), asked.toString());
            System.out.printf(Locale.ROOT, "STORE WRITE: %d bytes of tensors in 4 shards + index to s3proxy"
                    + " (filesystem) under -Xmx256m, --parallel 4 --part-size 8MiB: %.1f s, %.1f MiB/s; blob store"
                    + " calls %s%n", TENSORS * TENSOR_BYTES, seconds, TENSORS * TENSOR_BYTES / seconds / (1 << 20),
                    asked);
        }
    }
}
