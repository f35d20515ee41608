package dev.safetensors.cli;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Runs the real launcher, {@code bin/safetensors}, as a new user would: a separate process, with the JDK that runs
 * the tests ({@code JAVA_HOME}) and {@code SAFETENSORS_NO_BUILD=1}, so the launcher runs the jar that {@code package}
 * just built and never calls Maven.
 *
 * <p>Every run skips the launcher's class data sharing archive and C2 ({@link #SHORT_RUN}) unless its environment
 * says otherwise: a test's run is over a few kilobytes, where recording an archive (the first run of each subcommand
 * after a build, which in a clean build is nearly every test's) and C2's compilations cost more CPU than they win
 * back. What users get is checked where it matters: {@code LauncherIT}'s cache test runs {@link #asShipped} and
 * proves the archive (and the AOT cache on JDK 25) is written, used and changes nothing printed, and the slow tier's
 * throughput tests measure the command as shipped.
 */
public final class Cli {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Path LAUNCHER = Path.of(System.getProperty("safetensors.launcher", "../bin/safetensors"))
            .toAbsolutePath().normalize();

    /**
     * The environment every run starts from, under the test's own: no class data sharing archive is read or recorded
     * ({@code SAFETENSORS_NO_CDS}), and C1 only ({@code JAVA_OPTS}, which comes after the launcher's own choice of
     * compiler and so wins over it).
     */
    static final Map<String, String> SHORT_RUN = Map.of("SAFETENSORS_NO_CDS", "1",
            "JAVA_OPTS", "-XX:TieredStopAtLevel=1");

    private Cli() {
    }

    /**
     * @param env the test's environment
     * @return {@code env} with {@link #SHORT_RUN} undone: the launcher runs with the archive (or the AOT cache) and the
     *         compilers it picks, as users run it; a variable {@code env} sets itself is kept
     */
    static Map<String, String> asShipped(Map<String, String> env) {
        Map<String, String> shipped = new java.util.HashMap<>();
        // an empty value is the launcher's "not set": ${SAFETENSORS_NO_CDS:-} and ${JAVA_OPTS:-}
        SHORT_RUN.keySet().forEach(k -> shipped.put(k, ""));
        shipped.putAll(env);
        return shipped;
    }

    /**
     * What one run printed and returned.
     *
     * @param exit   the exit code
     * @param stdout the bytes on stdout
     * @param stderr the text on stderr
     */
    public record Run(int exit, byte[] stdout, String stderr) {
        /** @return stdout as UTF-8 text */
        public String out() {
            return new String(stdout, StandardCharsets.UTF_8);
        }

        /** @return the non-empty lines of stdout */
        List<String> outLines() {
            return out().lines().filter(l -> !l.isBlank()).toList();
        }

        /** @return the non-empty lines of stderr */
        public List<String> errLines() {
            return stderr.lines().filter(l -> !l.isBlank()).toList();
        }

        /** @return stdout parsed as JSON Lines, every line, the closing {@code summary} object included */
        List<JsonNode> jsonLines() {
            List<JsonNode> nodes = new ArrayList<>();
            for (String line : outLines()) {
                nodes.add(JSON.readTree(line));
            }
            return nodes;
        }

        /** @return the JSON lines before the closing {@code summary} object, if the last line is one */
        public List<JsonNode> json() {
            List<JsonNode> nodes = jsonLines();
            if (!nodes.isEmpty() && isSummary(nodes.get(nodes.size() - 1))) {
                nodes.remove(nodes.size() - 1);
            }
            return nodes;
        }

        /** @return the closing {@code summary} object; fails the test when the last line is none */
        public JsonNode summary() {
            List<JsonNode> nodes = jsonLines();
            if (nodes.isEmpty() || !isSummary(nodes.get(nodes.size() - 1))) {
                fail("no closing summary object\n" + describe());
            }
            return nodes.get(nodes.size() - 1);
        }

        private static boolean isSummary(JsonNode n) {
            return n.has("kind") && "summary".equals(n.get("kind").asString());
        }

        /** @return this run, after checking the exit code */
        public Run exits(int expected) {
            if (exit != expected) {
                fail("exit " + exit + ", expected " + expected + "\nstdout:\n" + out() + "\nstderr:\n" + stderr);
            }
            return this;
        }

        /** @return a description for assertion messages */
        public String describe() {
            return "exit " + exit + "\nstdout:\n" + out() + "\nstderr:\n" + stderr;
        }
    }

    /**
     * @param args the command line after {@code safetensors}
     * @return what the run printed and returned
     */
    static Run run(String... args) {
        return run(Map.of(), args);
    }

    /**
     * @param env  extra environment variables
     * @param args the command line after {@code safetensors}
     * @return what the run printed and returned
     */
    static Run run(Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>();
        command.add(LAUNCHER.toString());
        command.addAll(Arrays.asList(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("SAFETENSORS_NO_BUILD", "1");
        pb.environment().remove("HF_TOKEN");
        pb.environment().remove("HF_ENDPOINT");
        pb.environment().putAll(SHORT_RUN);
        pb.environment().putAll(env);
        pb.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        return finish(pb, "safetensors " + String.join(" ", args));
    }

    /**
     * Runs a bash script in which {@code $0} is the launcher, for what only a shell shows: pipes, process
     * substitution, redirections to devices.
     *
     * @param script the script
     * @param args   {@code $1}, {@code $2}, ...
     * @return what the script printed and returned
     */
    static Run shell(String script, String... args) {
        return shell(Map.of(), script, args);
    }

    /**
     * @param env    extra environment variables
     * @param script the script, in which {@code $0} is the launcher
     * @param args   {@code $1}, {@code $2}, ...
     * @return what the script printed and returned
     */
    static Run shell(Map<String, String> env, String script, String... args) {
        List<String> command = new ArrayList<>(List.of("bash", "-c", script, LAUNCHER.toString()));
        command.addAll(Arrays.asList(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("SAFETENSORS_NO_BUILD", "1");
        pb.environment().putAll(SHORT_RUN);
        pb.environment().putAll(env);
        pb.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        return finish(pb, script);
    }

    private static Run finish(ProcessBuilder pb, String what) {
        try {
            Process p = pb.start();
            CompletableFuture<byte[]> out = drain(p.getInputStream());
            CompletableFuture<byte[]> err = drain(p.getErrorStream());
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                fail(what + " did not finish in 120 s");
            }
            return new Run(p.exitValue(), out.join(), new String(err.join(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * Each stream of each run is read on a thread of its own: a reader that waits for a pool thread while its process
     * blocks on a full pipe would hang the run, and launcher tests run two at a time.
     */
    private static final java.util.concurrent.Executor DRAINS = task -> {
        Thread t = new Thread(task, "cli-drain");
        t.setDaemon(true);
        t.start();
    };

    private static CompletableFuture<byte[]> drain(InputStream in) {
        return CompletableFuture.supplyAsync(() -> {
            try (in; ByteArrayOutputStream buffer = new ByteArrayOutputStream()) {
                in.transferTo(buffer);
                return buffer.toByteArray();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, DRAINS);
    }

    /** @return the launcher this class runs, {@code bin/safetensors} of the checkout */
    static Path launcher() {
        return LAUNCHER;
    }

    /** @return the sample data folder of the repository ({@code examples/data}) */
    static Path examples() {
        Path p = Path.of(System.getProperty("safetensors.examples", "../examples/data")).toAbsolutePath().normalize();
        assertTrue(Files.isDirectory(p), p + " holds the sample data");
        return p;
    }
}
