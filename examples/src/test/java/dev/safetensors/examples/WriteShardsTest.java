package dev.safetensors.examples;

import dev.safetensors.core.Checkpoint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link WriteShards} runs, creates its folder and leaves the second version whole. */
@Isolated("replaces System.out to capture what the examples print")
class WriteShardsTest {
    @TempDir
    Path dir;

    @Test
    void writesTwoVersionsAndTheSecondLoads() throws IOException {
        Path folder = dir.resolve("made/by/the/writer");
        PrintStream saved = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            WriteShards.main(new String[] {folder.toString()});
        } finally {
            System.setOut(saved);
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains("version 2: wrote 3 files"), out);
        try (Checkpoint c = Checkpoint.open(folder.resolve("model.safetensors.index.json"))) {
            assertEquals(Float.intBitsToFloat(0x3e4d << 16), c.readFloat32("linear.weight")[0],
                    "0.2f (0x3e4ccccd) rounds up to BF16 0x3e4d, 0.20019531");
        }
    }
}
