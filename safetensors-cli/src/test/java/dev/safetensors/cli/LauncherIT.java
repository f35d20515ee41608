package dev.safetensors.cli;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What only the launcher and a real process show: the terminal flags the launcher passes, a manifest read from a
 * pipe (the launcher never reads user files), and standard output that is a full device or a pipe closed early.
 * Every other test of the command runs it in-process ({@link InProcess}): a JVM start is what costs here.
 */
class LauncherIT {
    @TempDir
    Path dir;

    /** Slow tier: two runs that each hash a 1 GiB (sparse) file. */
    @Test
    @Tag("slow")
    void progressIsDrawnOnATerminalOnly() {
        long payload = 1L << 30;
        Path big = Fixtures.sparse(dir.resolve("big.safetensors"), dev.safetensors.fixtures.SafetensorsFixture.create()
                .tensor("w", "F32", payload / 4).headerJson(), payload);
        String sha = "0".repeat(64);
        // the launcher says stderr is no terminal here (a pipe); the property plays the terminal
        Cli.Run quiet = Cli.run("verify", big.toString(), "--sha256", sha).exits(1);
        assertEquals("", quiet.stderr(), quiet.describe());
        Cli.Run drawn = Cli.run(Map.of("SAFETENSORS_JAVA_OPTS", "-Dsafetensors.stderr.terminal=true"), "verify",
                big.toString(), "--sha256", sha).exits(1);
        assertTrue(drawn.stderr().contains("\r[#"), drawn.describe());
        assertTrue(drawn.stderr().contains(" / 1.1 GB  "), drawn.describe());
        assertTrue(drawn.stderr().endsWith("\r\u001b[K"), "the bar is erased at the end\n" + drawn.describe());
        assertTrue(drawn.outLines().get(0).startsWith("INVALID     " + big + ": the SHA-256 computed here is "),
                drawn.describe());
    }

    @Test
    void javaOptsReachTheJvmAndTheCommandsOwnOptionsComeAfter() throws IOException {
        Path file = Fixtures.write(dir, "o.safetensors", Fixtures.small().build());
        // a heap too small to start proves the options reached the JVM; the command's own options come later and win
        Cli.Run refused = Cli.run(Map.of("JAVA_OPTS", "-Xmx1m"), "validate", file.toString());
        // the JVM says so on standard output, before any code of ours runs
        String said = new String(refused.stdout(), java.nio.charset.StandardCharsets.UTF_8) + refused.stderr();
        assertTrue(refused.exit() != 0 && said.contains("Too small maximum heap"), refused.describe());
        Cli.run(Map.of("JAVA_OPTS", "-Xmx1m", "SAFETENSORS_JAVA_OPTS", "-Xmx256m"), "validate", file.toString())
                .exits(0);
    }

    @Test
    void aManifestFromAPipeOrAProcessSubstitutionIsReadByJavaOnly() throws IOException {
        Path file = Fixtures.write(dir, "m.safetensors", Fixtures.small().build());
        Path manifest = dir.resolve("m.manifest.json");
        Files.write(manifest, InProcess.run("manifest", file.toString()).exits(0).stdout());
        Cli.Run piped = Cli.shell("cat \"$1\" | \"$0\" verify --manifest /dev/stdin", manifest.toString()).exits(0);
        assertTrue(piped.outLines().get(0).startsWith("OK          " + file + ": all checks passed"), piped.describe());
        Cli.Run substituted = Cli.shell("\"$0\" verify --manifest <(cat \"$1\")", manifest.toString()).exits(0);
        assertEquals(1, substituted.outLines().size(), substituted.describe());
    }

    @Test
    void aFullDeviceOnStdoutExitsThreeWithAMessage() {
        // the process's real stdout on a full device; every command's handling of a failed write is
        // CommandFailuresTest.everyCommandExitsThreeWhenStdoutCannotBeWritten, in-process
        Path file = Fixtures.write(dir, "m.safetensors", Fixtures.small().build());
        Cli.Run run = Cli.shell("\"$0\" inspect --json \"$1\" > /dev/full", file.toString()).exits(3);
        assertEquals(List.of("safetensors: cannot write to standard output (a closed pipe or a full disk?); the"
                + " output is incomplete [WRITE_FAILED]"), run.errLines(), run.describe());
    }

    @Test
    void aPipeClosedEarlyEndsQuietlyAsCatDoes() {
        long values = 4L << 20;
        Path big = Fixtures.sparse(dir.resolve("big.safetensors"), dev.safetensors.fixtures.SafetensorsFixture.create()
                .tensor("w", "F32", values).headerJson(), values * 4);
        // head exits after one line; the 16 MB of text that follow meet a closed pipe
        Cli.Run run = Cli.shell("\"$0\" dump --f32 \"$1\" w | head -n 1; exit \"${PIPESTATUS[0]}\"",
                big.toString()).exits(StandardOutput.CLOSED_PIPE_STATUS);
        assertEquals(List.of("0.0"), run.outLines(), run.describe());
        assertEquals(List.of(), run.errLines(), "nothing to report, as for cat or grep\n" + run.describe());
    }

    @Test
    void aFileWhoseNameIsNotUtf8IsOpened() {
        Path file = Fixtures.write(dir, "m.safetensors", Fixtures.small().build());
        Cli.Run run = Cli.shell("name=\"$(printf '%s/m\\xff.safetensors' \"$2\")\"; cp \"$1\" \"$name\";"
                + " \"$0\" validate \"$name\"", file.toString(), dir.toString()).exits(0);
        assertEquals(List.of("OK          " + dir + "/m\\ufffd.safetensors: 3 tensors, 12 parameters, 272 B"),
                run.outLines(), run.describe());
    }
}
