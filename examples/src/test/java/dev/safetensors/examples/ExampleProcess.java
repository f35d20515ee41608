package dev.safetensors.examples;

import dev.safetensors.fixtures.ChildJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.stream.Stream;

/**
 * Runs an example's {@code main} in a child JVM on the test class path, as a user runs it with {@code java -cp},
 * with environment variables that point it at a loopback server ({@code HF_ENDPOINT}, {@code STORAGE_EMULATOR_HOST},
 * AWS keys) and that keep it from reading the machine's cloud configuration. {@link #run} starts a JVM for one
 * example; {@link #runAll} runs several that share an environment one after another in one JVM
 * ({@link ExampleBatch}), which saves a JVM's start and an SDK's load per example.
 */
final class ExampleProcess {
    /** How long one example may take, and a batch's JVM may take to end after its last one. */
    private static final long TIMEOUT_SECONDS = 60;
    /** The line a batch's reader queues when the child's standard output ends. */
    private static final String END = "\u0000end of the batch's output";

    /** What the child printed. */
    record Result(int exitCode, String stdout, String stderr) {
    }

    /**
     * One run of an example in a batch.
     *
     * @param main the example's class
     * @param args its arguments
     */
    record Invocation(Class<?> main, List<String> args) {
        Invocation(Class<?> main, String... args) {
            this(main, List.of(args));
        }
    }

    private ExampleProcess() {
    }

    static Result run(Class<?> main, Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(ChildJvm.command("-cp", System.getProperty("java.class.path"),
                main.getName()));
        command.addAll(List.of(args));
        ProcessBuilder builder = builder(command, env);
        // to files, not pipes: a child that hangs or writes much to one stream cannot block the test
        Path out = Files.createTempFile("example", ".out");
        Path err = Files.createTempFile("example", ".err");
        try {
            Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(main.getSimpleName() + " did not finish within " + TIMEOUT_SECONDS + " s");
            }
            return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /**
     * Runs the invocations in order in one child JVM with the given environment, each with its own standard output
     * and error and its own exit code, as {@link #run} would give them.
     *
     * @param env       the environment every invocation shares
     * @param afterEach called with an invocation's index once it has ended and before the next starts (to look at
     *                  or forget a server's requests)
     * @return the results, in the order of {@code invocations}
     * @throws IOException if the batch's JVM fails, an invocation takes longer than the timeout, or the JVM does not
     *                     end after the last one (a thread that is not a daemon outlived its example)
     */
    static List<Result> runAll(Map<String, String> env, List<Invocation> invocations, IntConsumer afterEach)
            throws IOException, InterruptedException {
        Path folder = Files.createTempDirectory("examples");
        Path jvmErr = folder.resolve("jvm.err");
        List<String> command = ChildJvm.command("-cp", System.getProperty("java.class.path"),
                ExampleBatch.class.getName(), folder.toString());
        // standard output carries only the batch's short protocol lines, read as they come, so a pipe cannot fill
        Process process = builder(command, env).redirectError(jvmErr.toFile()).start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader protocol = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = protocol.readLine(); line != null; line = protocol.readLine()) {
                    lines.add(line);
                }
            } catch (IOException closed) {
                // the child was destroyed: END below tells the driver
            } finally {
                lines.add(END);
            }
        }, "example-batch-reader");
        reader.setDaemon(true);
        reader.start();
        try (Writer commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8)) {
            List<Result> results = new ArrayList<>();
            for (int i = 0; i < invocations.size(); i++) {
                Invocation invocation = invocations.get(i);
                commands.write(ExampleBatch.encode(invocation.main(), invocation.args()) + "\n");
                commands.flush();
                int exit = awaitDone(lines, i, invocation, process, jvmErr);
                results.add(new Result(exit, Files.readString(folder.resolve(i + ".out"), StandardCharsets.UTF_8),
                        Files.readString(folder.resolve(i + ".err"), StandardCharsets.UTF_8)));
                afterEach.accept(i);
            }
            commands.close();
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                throw new IOException("the examples' JVM did not end within " + TIMEOUT_SECONDS + " s of its last"
                        + " example: a thread that is not a daemon outlived its example");
            }
            if (process.exitValue() != 0) {
                throw new IOException("the examples' JVM ended with " + process.exitValue() + ": "
                        + Files.readString(jvmErr, StandardCharsets.UTF_8));
            }
            return results;
        } finally {
            process.destroyForcibly();
            try (Stream<Path> files = Files.list(folder)) {
                for (Path file : files.toList()) {
                    Files.delete(file);
                }
            }
            Files.delete(folder);
        }
    }

    /** Waits for the batch's line that ends invocation {@code index}, and returns its exit code. */
    private static int awaitDone(BlockingQueue<String> lines, int index, Invocation invocation, Process process,
            Path jvmErr) throws IOException, InterruptedException {
        List<String> stray = new ArrayList<>();
        while (true) {
            String line = lines.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (line == null) {
                throw new IOException(invocation + " did not finish within " + TIMEOUT_SECONDS + " s");
            }
            if (line.equals(END)) {
                process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                throw new IOException("the examples' JVM ended during " + invocation + ": " + stray + " "
                        + Files.readString(jvmErr, StandardCharsets.UTF_8));
            }
            if (!line.startsWith(ExampleBatch.DONE)) {
                stray.add(line); // written to the JVM's own standard output, not by an example through System.out
                continue;
            }
            String[] fields = line.substring(ExampleBatch.DONE.length()).split(" ");
            if (Integer.parseInt(fields[0]) != index) {
                throw new IOException("the examples' JVM answered for invocation " + fields[0] + ", not " + index);
            }
            return Integer.parseInt(fields[1]);
        }
    }

    /** A child's process with the given environment and none of the machine's cloud settings. */
    private static ProcessBuilder builder(List<String> command, Map<String, String> env) {
        ProcessBuilder builder = new ProcessBuilder(command);
        Map<String, String> environment = builder.environment();
        for (String inherited : List.of("HF_ENDPOINT", "HF_TOKEN", "STORAGE_EMULATOR_HOST", "AWS_PROFILE",
                "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "GOOGLE_APPLICATION_CREDENTIALS")) {
            environment.remove(inherited);
        }
        environment.put("AWS_CONFIG_FILE", "/nonexistent/aws-config");
        environment.put("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/aws-credentials");
        environment.put("AWS_EC2_METADATA_DISABLED", "true");
        environment.putAll(env);
        return builder;
    }
}
