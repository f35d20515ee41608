package dev.safetensors.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Makes a real named pipe with {@code mkfifo}; the JDK has no call for it. */
final class Fifo {
    private Fifo() {
    }

    /**
     * @param path where the FIFO goes
     * @return the path, now a FIFO
     */
    static Path create(Path path) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder("mkfifo", path.toString()).redirectErrorStream(true).start();
        } catch (IOException e) {
            assumeTrue(false, "SKIPPED: mkfifo cannot run here (" + e.getMessage() + "), so no FIFO test");
            throw e;
        }
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "mkfifo did not finish");
        assertEquals(0, p.exitValue(), "mkfifo failed");
        assertTrue(Files.exists(path) && !Files.isRegularFile(path), path + " is a FIFO");
        return path;
    }
}
