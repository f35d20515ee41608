package dev.safetensors.core;

import dev.safetensors.fixtures.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A write that fails mid-download as on a full disk: a child JVM under a file size limit of 256 KiB ({@code ulimit
 * -f}; the JVM ignores {@code SIGXFSZ}, so the write fails with {@code EFBIG}) downloads a 1 MiB file. The failure is
 * the output's, {@code WRITE_FAILED}, as {@code docs/errors.md} says, not {@code IO_ERROR}.
 */
class DownloadFullDiskTest {
    @TempDir
    Path dir;

    @Test
    void aWriteThatFailsMidDownloadIsWriteFailed() throws Exception {
        List<String> java = ChildJvm.command("-Xmx64m", "-XX:-UsePerfData", "-cp",
                ChildJvm.testClassPath(ChildDownload.class), ChildDownload.class.getName(), dir.toString());
        List<String> command = new ArrayList<>(List.of("bash", "-c", "ulimit -f 256 && exec \"$@\"", "bash"));
        command.addAll(java);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            byte[] out = p.getInputStream().readAllBytes();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the child ends");
            assertEquals("WRITE_FAILED", new String(out, StandardCharsets.UTF_8).strip());
            assertFalse(Files.exists(dir.resolve("model.safetensors")), "nothing under the final name");
        } finally {
            p.destroyForcibly();
        }
    }
}
