package dev.safetensors.cli;

import dev.safetensors.DType;
import dev.safetensors.core.ShardedWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code dump} of a sharded checkpoint's index: the shard the index names is read. */
class DumpIndexTest {
    @TempDir
    Path dir;

    @Test
    void aTensorIsDumpedThroughTheIndex() throws IOException {
        byte[] b = {9, 8, 7, 6};
        ShardedWriter.create(4).tensor("a", DType.U8, new long[] {4}, new byte[] {1, 2, 3, 4})
                .tensor("b", DType.U8, new long[] {4}, b).writeTo(dir);
        Path index = dir.resolve("model.safetensors.index.json");
        Path out = dir.resolve("b.bin");
        ReshardTest.Run r = ReshardTest.run("dump", index.toString(), "b", "--out", out.toString());
        assertEquals(0, r.exit(), r.describe());
        assertArrayEquals(b, Files.readAllBytes(out));
        ReshardTest.Run missing = ReshardTest.run("dump", index.toString(), "zz", "--out", out.toString());
        assertEquals(2, missing.exit(), missing.describe());
        assertTrue(missing.err().contains("the index names no tensor \"zz\""), missing.describe());
        ReshardTest.Run broken = ReshardTest.run("dump", dir.resolve("gone.safetensors.index.json").toString(), "b",
                "--out", out.toString());
        assertEquals(3, broken.exit(), broken.describe());
    }
}
