package dev.safetensors.cli;

import dev.safetensors.fixtures.ChildJvm;
import dev.safetensors.DType;
import dev.safetensors.core.Checkpoint;
import dev.safetensors.core.SafetensorsWriter;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * 5,000 output shards under {@code -Xmx256m} and {@code ulimit -n 256}: a child JVM, because the heap and descriptor
 * limits are what is under test. Before the commit protocol wrote one file at a time, every output descriptor stayed
 * open until the end and each file held its own 1 MiB direct buffer.
 */
@Tag("slow")
class ManyShardsChildTest {
    private static final int TENSORS = 5_000;

    @TempDir
    Path dir;

    @Test
    void fiveThousandShardsFitInASmallHeapAndFewDescriptors() throws Exception {
        if (!Files.isExecutable(Path.of("/bin/sh"))) {
            System.err.println("SKIPPED: no /bin/sh to set ulimit -n");
            return;
        }
        Path in = dir.resolve("many.safetensors");
        SafetensorsWriter w = SafetensorsWriter.create();
        for (int i = 0; i < TENSORS; i++) {
            w.tensor("t" + i, DType.I32, new long[] {1}, ByteBuffer.allocate(4).putInt(0, i));
        }
        w.writeTo(in);
        Path out = dir.resolve("out");
        List<String> command = new ArrayList<>(List.of("/bin/sh", "-c", "ulimit -n 256 && exec \"$@\"", "sh"));
        command.addAll(ChildJvm.command("-Xmx256m", "-cp", ChildJvm.testClassPath(), Main.class.getName(), "reshard",
                in.toString(), "--out", out.toString(), "--max-shard-size", "1B"));
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("log.txt").toFile()).start();
        try {
            assertTrue(p.waitFor(10, TimeUnit.MINUTES), "the child ends");
        } finally {
            p.destroyForcibly();
        }
        String log = Files.readString(dir.resolve("log.txt"), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), () -> log.lines().skip(Math.max(0, log.lines().count() - 5))
                .reduce("", (a, b) -> a + "\n" + b));
        try (var files = Files.list(out)) {
            assertEquals(TENSORS + 1, files.count(), "5,000 shards and an index");
        }
        try (Checkpoint c = Checkpoint.open(out.resolve("model.safetensors.index.json"))) {
            assertEquals(TENSORS, c.tensors().size());
            assertEquals(4_999, c.readBytes("t4999").order(java.nio.ByteOrder.BIG_ENDIAN).getInt(0), "written big-endian, read back as written");
        }
    }
}
