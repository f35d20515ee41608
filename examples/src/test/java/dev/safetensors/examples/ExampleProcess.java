package dev.safetensors.examples;

import dev.safetensors.fixtures.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs an example's {@code main} in a child JVM on the test class path, as a user runs it with {@code java -cp},
 * with environment variables that point it at a loopback server ({@code HF_ENDPOINT}, {@code STORAGE_EMULATOR_HOST},
 * AWS keys) and that keep it from reading the machine's cloud configuration.
 */
final class ExampleProcess {
    /** What the child printed. */
    record Result(int exitCode, String stdout, String stderr) {
    }

    private ExampleProcess() {
    }

    static Result run(Class<?> main, Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(ChildJvm.command("-cp", System.getProperty("java.class.path"),
                main.getName()));
        command.addAll(List.of(args));
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
        // to files, not pipes: a child that hangs or writes much to one stream cannot block the test
        Path out = Files.createTempFile("example", ".out");
        Path err = Files.createTempFile("example", ".err");
        try {
            Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(main.getSimpleName() + " did not finish within 60 s");
            }
            return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
