package dev.safetensors.cli;

import dev.safetensors.fixtures.LoopbackS3;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Runs the command inside the test's JVM through {@link Main#run}: the same parsing, checks and output as the
 * launcher's process, without a JVM start per run. Tests of the launcher itself stay in {@link LauncherIT}.
 *
 * <p>An environment is injected per run, not written into the JVM's: the variables the backends read when the
 * launcher starts them ({@code HF_ENDPOINT}, {@code HF_TOKEN}, {@code STORAGE_EMULATOR_HOST},
 * {@code GOOGLE_CLOUD_PROJECT}) reach {@link InjectedEnvironmentProvider}, which this module's tests install through
 * {@code ServiceLoader} ahead of the real providers, through an inheritable thread-local: the command's worker
 * threads, created during the run, see it, and test classes running at the same time do not. The AWS SDK reads its
 * credentials and region from system properties as well as from the environment; those are JVM-wide, so every test
 * of this module uses the same ones ({@link #S3_ENV}) and a different value is refused rather than raced.
 */
public final class InProcess {
    /**
     * The AWS settings every in-process S3 run of this module uses (the SDK reads them from system properties): the
     * test kit's keys, which its s3proxy ({@link LoopbackS3}) checks.
     */
    public static final Map<String, String> S3_ENV = Map.of("AWS_ACCESS_KEY_ID", LoopbackS3.ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY", LoopbackS3.SECRET_KEY, "AWS_REGION", "us-east-1",
            "AWS_EC2_METADATA_DISABLED", "true");
    private static final Map<String, String> AWS_PROPERTIES = Map.of("AWS_ACCESS_KEY_ID", "aws.accessKeyId",
            "AWS_SECRET_ACCESS_KEY", "aws.secretAccessKey", "AWS_REGION", "aws.region",
            "AWS_EC2_METADATA_DISABLED", "aws.disableEc2Metadata");
    private static final InheritableThreadLocal<Map<String, String>> ENVIRONMENT = new InheritableThreadLocal<>();

    private InProcess() {
    }

    /**
     * @param args the command line after {@code safetensors}
     * @return what the run printed and returned
     */
    public static Cli.Run run(String... args) {
        return run(Map.of(), args);
    }

    /**
     * @param env  environment variables the run sees, as the launcher's process would
     * @param args the command line after {@code safetensors}
     * @return what the run printed and returned
     */
    public static Cli.Run run(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = run(env, out, err, args);
        return new Cli.Run(exit, out.toByteArray(), err.toString(StandardCharsets.UTF_8));
    }

    /**
     * @param stdout where stdout goes (a failing stream to test write failures)
     * @param stderr where stderr goes
     * @param args   the command line after {@code safetensors}
     * @return the exit code
     */
    public static int run(OutputStream stdout, OutputStream stderr, String... args) {
        return run(Map.of(), stdout, stderr, args);
    }

    private static int run(Map<String, String> env, OutputStream stdout, OutputStream stderr, String... args) {
        PrintStream out = new PrintStream(stdout, false, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(stderr, true, StandardCharsets.UTF_8);
        awsProperties(env);
        ENVIRONMENT.set(Map.copyOf(env));
        try {
            return Main.run(args, out, err);
        } finally {
            ENVIRONMENT.remove();
        }
    }

    /** @return the environment injected into the run on this thread, empty outside one */
    static Map<String, String> environment() {
        Map<String, String> env = ENVIRONMENT.get();
        return env == null ? Map.of() : env;
    }

    private static synchronized void awsProperties(Map<String, String> env) {
        for (Map.Entry<String, String> e : AWS_PROPERTIES.entrySet()) {
            String value = env.get(e.getKey());
            if (value != null) {
                assertEquals(S3_ENV.get(e.getKey()), value, e.getKey() + ": this module's tests share InProcess.S3_ENV,"
                        + " because the AWS SDK reads it from JVM-wide system properties");
                System.setProperty(e.getValue(), value);
            }
        }
    }
}
