package dev.safetensors.cli.output;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.safetensors.cli.Main;
import dev.safetensors.cli.arguments.ByteSize;
import dev.safetensors.cli.results.Status;

/**
 * The command's rough edges an operator meets (issue 23, item 8), each run in-process: a closed pipe on stdout, a full
 * device, {@code --part-size} with a unit, {@code --quiet}, {@code dump --jobs}, and a usage error under {@code --json}.
 */
class CommandEdgesTest {
    private static final String SAMPLE = Path.of("..", "examples", "data", "sample.safetensors").toString();

    @TempDir
    Path dir;

    /** What one run printed and returned. */
    private record Run(int exit, String out, String err) {
        String describe() {
            return "exit " + exit + "\nstdout: " + out + "\nstderr: " + err;
        }
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Main.run(args, new PrintStream(out, false, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** A device whose every write fails, as a pipe whose reader went away or a full disk does. */
    private static final class FailingDevice extends OutputStream {
        @Override
        public void write(int b) throws IOException {
            throw new IOException("write failed");
        }
    }

    private static Run runInto(StandardOutput stdout, String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Main.run(args, stdout, new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, "", err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aClosedPipeEndsTheCommandQuietlyWithTheStatusOfCat() {
        for (String[] args : new String[][] {{"dump", SAMPLE, "embed.weight"}, {"inspect", "--tensors", SAMPLE},
                {"validate", "--json", SAMPLE}}) {
            Run r = runInto(StandardOutput.over(new FailingDevice(), () -> true), args);
            assertEquals(StandardOutput.CLOSED_PIPE_STATUS, r.exit(), r.describe());
            assertEquals(141, r.exit(), "128 + SIGPIPE, as the shell reports for cat");
            assertEquals("", r.err(), "nothing to report: the reader has what it wanted");
        }
    }

    @Test
    void aFullDeviceStaysAWriteFailure() {
        Run r = runInto(StandardOutput.over(new FailingDevice(), () -> false), "dump", SAMPLE, "embed.weight");
        assertEquals(Status.ERROR.exitCode(), r.exit(), r.describe());
        assertTrue(r.err().contains("[WRITE_FAILED]"), r.describe());
    }

    @Test
    void standardOutputThatWorksIsNeverTakenForAClosedPipe() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        StandardOutput stdout = StandardOutput.over(bytes, () -> true);
        Run r = runInto(stdout, "validate", SAMPLE);
        assertEquals(0, r.exit(), r.describe());
        assertFalse(stdout.readerGone());
        assertTrue(bytes.toString(StandardCharsets.UTF_8).startsWith("OK"));
    }

    @Test
    void thePipeProbeTellsAPipeFromAFileAndADevice() throws Exception {
        Path file = Files.writeString(dir.resolve("file"), "x");
        assertFalse(PipeProbe.isPipe(file), "a regular file can be full, not closed");
        assertFalse(PipeProbe.isPipe(Path.of("/dev/null")), "a device");
        assertFalse(PipeProbe.isPipe(dir.resolve("missing")), "unknown: no");
        Path fifo = dir.resolve("fifo");
        Process mkfifo;
        try {
            mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).redirectErrorStream(true).start();
        } catch (IOException e) {
            Assumptions.abort("SKIPPED: mkfifo is not available here (" + e.getMessage() + "); the FIFO case is"
                    + " untested");
            return;
        }
        assertTrue(mkfifo.waitFor(30, TimeUnit.SECONDS), "mkfifo ended");
        Assumptions.assumeTrue(mkfifo.exitValue() == 0, "SKIPPED: mkfifo failed; the FIFO case is untested");
        assertTrue(PipeProbe.isPipe(fifo), "a named pipe");
    }

    @Test
    void partSizeTakesTheUnitsOfMaxShardSize() throws IOException {
        Path out = dir.resolve("w.bin");
        for (String size : new String[] {"8MiB", "8388608", "64KiB", "1MB"}) {
            Run r = run("dump", "--part-size", size, SAMPLE, "embed.weight", "-o", out.toString());
            assertEquals(0, r.exit(), size + ": " + r.describe());
            assertEquals(48, Files.size(out));
        }
        assertEquals(8L << 20, ByteSize.parseBytes("8MiB"));
        assertEquals(8L << 20, ByteSize.parseBytes("8388608"));
        assertThrows(IllegalArgumentException.class, () -> ByteSize.parse("8388608"), "a shard size keeps its unit");
        Run huge = run("dump", "--part-size", "3GiB", SAMPLE, "embed.weight", "-o", out.toString());
        assertEquals(Status.USAGE, huge.exit(), huge.describe());
        assertTrue(huge.err().contains("--part-size") && huge.err().contains("more than a part can hold"),
                huge.describe());
        Run word = run("dump", "--part-size", "eight", SAMPLE, "embed.weight", "-o", out.toString());
        assertEquals(Status.USAGE, word.exit(), word.describe());
        assertTrue(word.err().contains("is not a size"), word.describe());
    }

    @Test
    void quietIsAcceptedByEveryCommandThatDrawsProgress() throws IOException {
        Path out = dir.resolve("q.bin");
        assertEquals(0, run("validate", "--quiet", SAMPLE).exit());
        assertEquals(0, run("inspect", "--quiet", SAMPLE).exit());
        assertEquals(0, run("dump", "--quiet", SAMPLE, "embed.weight", "-o", out.toString()).exit());
        Path reshard = dir.resolve("reshard");
        Run r = run("reshard", "--quiet", SAMPLE, "--single", "--out", reshard.toString());
        assertEquals(0, r.exit(), r.describe());
        assertTrue(run("validate", "--help").out().contains("--quiet"));
    }

    @Test
    void quietDrawsNoBarEvenOnATerminal() {
        PrintStream stderr = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        int[] asked = {0};
        Output quiet = new Output(stderr, stderr, false, false, true, () -> ++asked[0] > 0);
        quiet.startProgress(100, ProgressBar.Unit.BYTES).close();
        assertEquals(0, asked[0], "quiet: the bar is off whatever stderr is");
        Output normal = new Output(stderr, stderr, false, false, false, () -> ++asked[0] < 0);
        normal.startProgress(100, ProgressBar.Unit.BYTES).close();
        assertEquals(1, asked[0], "otherwise the bar is drawn when stderr is a terminal");
    }

    @Test
    void dumpJobsPointsAtParallel() {
        Run r = run("dump", "--jobs", "4", SAMPLE, "embed.weight");
        assertEquals(Status.USAGE, r.exit(), r.describe());
        assertTrue(r.err().contains("Unknown option: '--jobs'") && r.err().contains("use '--parallel N'"),
                r.describe());
        Run other = run("dump", "--nope", SAMPLE, "embed.weight");
        assertTrue(other.err().contains("Unknown option: '--nope'") && !other.err().contains("--parallel"),
                other.describe());
    }

    @Test
    void aUsageErrorUnderJsonIsOneJsonObjectOnStdout() {
        Run r = run("validate", "--json", "--bogus", SAMPLE);
        assertEquals(Status.USAGE, r.exit(), r.describe());
        assertEquals("{\"kind\":\"usage\",\"status\":\"usage\",\"code\":\"USAGE\",\"command\":"
                + "\"safetensors validate\",\"message\":\"Unknown option: '--bogus'\"}\n", r.out());
        assertTrue(r.err().contains("Unknown option: '--bogus'"), "stderr says it too: " + r.describe());
        Run missing = run("dump", "--json", SAMPLE);
        assertEquals(Status.USAGE, missing.exit(), missing.describe());
        assertTrue(missing.out().startsWith("{\"kind\":\"usage\",\"status\":\"usage\",\"code\":\"USAGE\""),
                missing.describe());
        assertEquals("", run("validate", "--bogus", SAMPLE).out(), "without --json, stdout stays empty");
    }
}
