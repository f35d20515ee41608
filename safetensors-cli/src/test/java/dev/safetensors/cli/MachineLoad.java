package dev.safetensors.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The machine's load, which the slow tier's throughput figures print beside each measurement. */
final class MachineLoad {
    private MachineLoad() {
    }

    /** @return the 1-minute load average as {@code /proc/loadavg} gives it, or {@code "unknown"} elsewhere */
    static String now() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
