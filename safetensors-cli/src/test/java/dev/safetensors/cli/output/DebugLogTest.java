package dev.safetensors.cli.output;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.safetensors.cli.InProcess;
import dev.safetensors.cli.Cli;
import dev.safetensors.cli.Fixtures;

/**
 * The libraries' log lines during a run: on stderr, escaped, with {@code --debug} only. The line is logged while the
 * command writes its result, through the logger the HTTP backend uses, so it passes the same JDK backend. Isolated:
 * the logging configuration is the JVM's, and another class's run would change it midway.
 */
@Isolated
class DebugLogTest {
    private static final String HOSTILE = "retrying after 503; server said \u001b[2J\u001b]0;owned\u0007";

    @TempDir
    Path dir;

    /** Standard output that logs a line, once, when the command first writes. */
    private static final class LoggingStdout extends OutputStream {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private boolean logged;

        @Override
        public void write(int b) {
            log();
            bytes.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            log();
            bytes.write(b, off, len);
        }

        private void log() {
            if (!logged) {
                logged = true;
                System.getLogger("dev.safetensors.http").log(System.Logger.Level.DEBUG, HOSTILE);
            }
        }
    }

    private Cli.Run run(String... args) {
        Logger root = Logger.getLogger("");
        List<Handler> handlers = List.of(root.getHandlers());
        Level level = root.getLevel();
        LoggingStdout out = new LoggingStdout();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = InProcess.run(out, err, args);
        assertTrue(out.logged, "the command wrote, so the line was logged during the run");
        assertEquals(handlers, List.of(root.getHandlers()), "the run put back the handlers it found");
        assertEquals(level, root.getLevel(), "the run put back the level it found");
        return new Cli.Run(exit, out.bytes.toByteArray(), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void withDebugALibraryDebugLineReachesStderrEscaped() {
        Path file = Fixtures.write(dir, "m.safetensors", Fixtures.small().build());
        Cli.Run run = run("inspect", "--debug", file.toString()).exits(0);
        assertEquals(List.of("safetensors: DEBUG dev.safetensors.http: retrying after 503; server said"
                + " \\u001b[2J\\u001b]0;owned\\u0007"), run.errLines(), run.describe());
        assertFalse(run.stderr().contains("\u001b"), "no raw escape reaches the terminal");
    }

    @Test
    void withoutDebugNothingIsLoggedNotEvenWithJson() {
        Path file = Fixtures.write(dir, "m.safetensors", Fixtures.small().build());
        for (String[] args : List.of(new String[] {"inspect", file.toString()},
                new String[] {"inspect", "--json", file.toString()})) {
            Cli.Run run = run(args).exits(0);
            assertEquals("", run.stderr(), run.describe());
        }
    }

    @Test
    void runsThatOverlapRestoreTheConfigurationWhenTheLastEnds() {
        Logger root = Logger.getLogger("");
        List<Handler> handlers = List.of(root.getHandlers());
        Level level = root.getLevel();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        DebugLog quiet = DebugLog.route(false, new PrintStream(err, true, StandardCharsets.UTF_8));
        DebugLog debug = DebugLog.route(true, new PrintStream(err, true, StandardCharsets.UTF_8));
        quiet.close();
        System.getLogger("dev.safetensors.core").log(System.Logger.Level.DEBUG, "still routed");
        assertTrue(handlers.stream().noneMatch(h -> List.of(root.getHandlers()).contains(h)),
                "the handlers found stay off while a run is going");
        debug.close();
        assertEquals("safetensors: DEBUG dev.safetensors.core: still routed" + System.lineSeparator(),
                err.toString(StandardCharsets.UTF_8));
        assertEquals(handlers, List.of(root.getHandlers()));
        assertEquals(level, root.getLevel());
    }

    @Test
    void aLibraryWarningStaysOffStderrWithoutDebugToo() {
        Path file = Fixtures.write(dir, "m.safetensors", Fixtures.small().build());
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        OutputStream out = new OutputStream() {
            @Override
            public void write(int b) {
                Logger.getLogger("com.google.cloud.storage").warning("a cloud SDK warning");
            }
        };
        assertEquals(0, InProcess.run(out, err, "inspect", file.toString()));
        assertEquals("", err.toString(StandardCharsets.UTF_8));
    }
}
