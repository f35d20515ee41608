package dev.safetensors.core;

import dev.safetensors.fixtures.ChildJvm;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.TensorInfo;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
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
 * The two writer properties that need a JVM of their own: a 3 GiB tensor is written under {@code -Xmx128m} (memory
 * is one block, whatever the size), and a SIGTERM in the middle of a write leaves no temporary file.
 */
class ChildJvmWriteTest {
    private static final long THREE_GIB = 3L << 30;

    @TempDir
    Path dir;

    /** Slow tier ({@code -Pslow}): 3 GiB written and read back. */
    @Test
    @Tag("slow")
    void aThreeGibTensorIsWrittenWithA128MibHeap() throws Exception {
        Path in = dir.resolve("zeros.bin");
        try (RandomAccessFile f = new RandomAccessFile(in.toFile(), "rw")) {
            f.setLength(THREE_GIB);
            f.seek(THREE_GIB - 2);
            f.write(new byte[] {9, 9});
        }
        Path out = dir.resolve("big.safetensors");
        try {
            Process p = java("-Xmx128m", "copy", in.toString(), out.toString());
            String line = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            assertTrue(p.waitFor(300, TimeUnit.SECONDS), "the copy finishes");
            assertEquals(0, p.exitValue(), new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
            String[] reported = line.split(" ");
            assertTrue(Long.parseLong(reported[1]) <= 128L << 20, "the child ran with at most 128 MiB of heap: "
                    + reported[1]);
            SafetensorsHeader h = Safetensors.readHeader(out);
            assertEquals(Long.parseLong(reported[0]), h.fileSize());
            assertEquals(Files.size(out), h.fileSize());
            TensorInfo big = h.tensor("big").orElseThrow();
            assertEquals(THREE_GIB, big.byteLength());
            try (RandomAccessFile f = new RandomAccessFile(out.toFile(), "r")) {
                ByteBuffer end = ByteBuffer.allocate(5);
                f.getChannel().read(end, h.payloadOffset() + big.end() - 2);
                assertEquals(ByteBuffer.wrap(new byte[] {9, 9, 1, 2, 3}), end.flip(), "the last bytes of both");
            }
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(in);
        }
    }

    @Test
    void aSigtermMidWriteLeavesNoTemporaryFile() throws Exception {
        Path out = dir.resolve("stalled.safetensors");
        Process p = java("-Xmx64m", "stall", out.toString());
        try {
            String line = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            assertEquals("writing", line, "the child is inside the write");
            assertEquals(1, dir.toFile().list().length, "its temporary file exists");
            p.destroy();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "SIGTERM ends the child");
            assertEquals(0, dir.toFile().list().length, "the shutdown hook deleted the temporary file");
        } finally {
            p.destroyForcibly();
        }
    }

    private static Process java(String heap, String... args) throws IOException {
        List<String> command = new ArrayList<>(ChildJvm.command(heap, "-cp", ChildJvm.testClassPath(ChildWriter.class),
                ChildWriter.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).start();
    }
}
