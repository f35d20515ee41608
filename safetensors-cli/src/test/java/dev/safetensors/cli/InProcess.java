package dev.safetensors.cli;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Runs the command inside the test's JVM through {@link Main#run}: the same parsing, checks and output as the
 * launcher's process, without a JVM start per run. Tests of the launcher itself stay in the {@code *IT} classes.
 */
final class InProcess {
    private InProcess() {
    }

    /**
     * @param args the command line after {@code safetensors}
     * @return what the run printed and returned
     */
    static Cli.Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = run(out, err, args);
        return new Cli.Run(exit, out.toByteArray(), err.toString(StandardCharsets.UTF_8));
    }

    /**
     * @param stdout where stdout goes (a failing stream to test write failures)
     * @param stderr where stderr goes
     * @param args   the command line after {@code safetensors}
     * @return the exit code
     */
    static int run(OutputStream stdout, OutputStream stderr, String... args) {
        PrintStream out = new PrintStream(stdout, false, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(stderr, true, StandardCharsets.UTF_8);
        return Main.run(args, out, err);
    }
}
