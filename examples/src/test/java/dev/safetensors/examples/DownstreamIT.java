package dev.safetensors.examples;

import dev.safetensors.fixtures.ChildJvm;
import dev.safetensors.fixtures.FolderServer;
import dev.safetensors.fixtures.LoopbackS3;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.File;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The two downstream projects of {@code examples/downstream} (a JPMS application and a class-path one, each naming
 * only {@code safetensors-bom} and module coordinates) compiled with javac against the packaged jars in
 * {@code target/lib}, as a user's build would see them, then run in one child JVM each. Both read the sample
 * checkpoint from a local path, from s3proxy addressed by host name ({@code http://localhost:PORT}, path-style set on
 * the application's own {@code S3Client}), and from Jetty over {@code http://}. {@code .ci/downstream-bom} builds the
 * same projects with Maven against a throwaway repository and checks the versions the BOM gives them.
 */
class DownstreamIT {
    private static final Path LIB = Path.of("target", "lib");
    private static final Path SAMPLE = Path.of("data", "sample.safetensors").toAbsolutePath();

    @TempDir
    static Path store;
    private static LoopbackS3 proxy;
    private static FolderServer web;

    @BeforeAll
    static void start() throws Exception {
        Path bucket = Files.createDirectories(store.resolve("models"));
        Files.copy(SAMPLE, bucket.resolve("sample.safetensors"));
        // a server of its own over the folder: this class runs in failsafe's JVM, where no other class starts s3proxy
        proxy = LoopbackS3.overFolder(store);
        web = new FolderServer(SAMPLE.getParent());
    }

    @AfterAll
    static void stop() throws Exception {
        web.close();
        proxy.close();
    }

    @Test
    void aModularApplicationReadsAFileAnS3ObjectByHostNameAndAnHttpUrl(@TempDir Path dir) throws Exception {
        // the module path holds what the application's modules need: ours, Jackson 3, the AWS SDK, SLF4J; the
        // Google and Azure jars (gcs and azure are not used here) stay out
        List<Path> modules = jarsWhoseModule(name -> (name.startsWith("dev.safetensors.")
                && !name.equals("dev.safetensors.gcs") && !name.equals("dev.safetensors.azure")) || name.startsWith("tools.jackson.")
                || name.startsWith("software.amazon.awssdk") || name.equals("org.reactivestreams")
                || name.startsWith("org.slf4j"));
        Path classes = compile(Path.of("downstream", "jpms", "src", "main", "java"), dir, "--module-path", modules);
        List<String> command = new ArrayList<>(List.of("--module-path",
                join(Stream.concat(Stream.of(classes), modules.stream()).toList()),
                // SLF4J is an explicit module that no module requires: the AWS SDK's automatic modules read it only
                // once it is in the boot layer (docs/logging.md)
                "--add-modules", "org.slf4j",
                "-m", "downstream.jpms/downstream.jpms.ReadThree"));
        String out = run(command);
        assertTrue(out.contains("READ " + SAMPLE + " 4 tensors via dev.safetensors.core"), out);
        assertTrue(out.contains("READ s3://models/sample.safetensors 4 tensors via dev.safetensors.s3"), out);
        assertTrue(out.contains("READ http://" + web.hostAndPort() + "/sample.safetensors 4 tensors via"
                + " dev.safetensors.http"), out);
    }

    @Test
    void aClassPathApplicationReadsTheSameThree(@TempDir Path dir) throws Exception {
        List<Path> all = jarsWhoseModule(name -> true);
        Path classes = compile(Path.of("downstream", "classpath", "src", "main", "java"), dir, "-classpath", all);
        String out = run(List.of("-cp", join(Stream.concat(Stream.of(classes), all.stream()).toList()),
                "downstream.classpath.ReadThree"));
        assertTrue(out.contains("READ " + SAMPLE + " 4 tensors via dev.safetensors.core.FileSource"), out);
        assertTrue(out.contains("READ s3://models/sample.safetensors 4 tensors via dev.safetensors.s3.S3Source"), out);
        assertTrue(out.contains("READ http://" + web.hostAndPort() + "/sample.safetensors 4 tensors via"
                + " dev.safetensors.http.HttpSource"), out);
    }

    private static List<Path> jarsWhoseModule(java.util.function.Predicate<String> wanted) throws Exception {
        assertTrue(Files.isDirectory(LIB), LIB + " is written by package, before this test");
        try (Stream<Path> jars = Files.list(LIB)) {
            List<Path> chosen = new ArrayList<>();
            for (Path jar : jars.filter(p -> p.toString().endsWith(".jar")).sorted().toList()) {
                String name = ModuleFinder.of(jar).findAll().stream().map(ModuleReference::descriptor)
                        .map(d -> d.name()).findFirst().orElse("");
                if (wanted.test(name)) {
                    chosen.add(jar.toAbsolutePath());
                }
            }
            assertFalse(chosen.isEmpty(), "no jar in " + LIB);
            return chosen;
        }
    }

    private static Path compile(Path sources, Path dir, String pathOption, List<Path> path) throws Exception {
        Path classes = Files.createDirectories(dir.resolve("classes"));
        List<String> args = new ArrayList<>(List.of("--release", "17", "-Werror", "-Xlint:all,-requires-automatic",
                pathOption, join(path), "-d", classes.toString()));
        try (Stream<Path> files = Files.walk(sources)) {
            files.filter(p -> p.toString().endsWith(".java")).map(Path::toString).forEach(args::add);
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int status = javac.run(null, null, null, args.toArray(String[]::new));
        assertEquals(0, status, "the downstream project compiles against the packaged jars: " + args);
        return classes;
    }

    private String run(List<String> arguments) throws Exception {
        List<String> command = new ArrayList<>(ChildJvm.command(arguments.toArray(String[]::new)));
        command.add(SAMPLE.toString());
        command.add("http://localhost:" + proxy.port());
        command.add("s3://models/sample.safetensors");
        command.add("http://" + web.hostAndPort() + "/sample.safetensors");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("AWS_ACCESS_KEY_ID", LoopbackS3.ACCESS_KEY);
        builder.environment().put("AWS_SECRET_ACCESS_KEY", LoopbackS3.SECRET_KEY);
        builder.environment().put("AWS_EC2_METADATA_DISABLED", "true");
        builder.environment().put("AWS_CONFIG_FILE", store.resolve("no-aws-config").toString());
        builder.environment().put("AWS_SHARED_CREDENTIALS_FILE", store.resolve("no-aws-credentials").toString());
        builder.environment().remove("AWS_ENDPOINT_URL");
        builder.environment().remove("AWS_ENDPOINT_URL_S3");
        Process process = builder.start();
        byte[] output = process.getInputStream().readAllBytes();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the child JVM ends");
        String text = new String(output, StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), text);
        return text;
    }

    private static String join(List<Path> paths) {
        return paths.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator));
    }
}
