package dev.safetensors.gcs;

import dev.safetensors.fixtures.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Proves the JPMS layout the package documentation recommends: a named application module that only
 * {@code requires dev.safetensors.api}, with the packaged {@code dev.safetensors.gcs} jar on the module path and
 * the Google jars on the class path, finds the reader and the writer through {@code ServiceLoader}, reads an object
 * from an emulator named by {@code STORAGE_EMULATOR_HOST} and writes one to it. Runs after {@code package}, against
 * the real jar and manifest.
 */
class ModulePathIT {

    private static final String MODULE_INFO = "module probe {\n"
            + "    requires dev.safetensors.api;\n"
            + "    uses dev.safetensors.RandomAccessSourceProvider;\n"
            + "    uses dev.safetensors.spi.ObjectWriterProvider;\n"
            + "}\n";

    private static final String PROBE = "package probe;\n"
            + "import dev.safetensors.Location;\n"
            + "import dev.safetensors.RandomAccessSource;\n"
            + "import dev.safetensors.RandomAccessSourceProvider;\n"
            + "import dev.safetensors.spi.ObjectUpload;\n"
            + "import dev.safetensors.spi.ObjectWriterProvider;\n"
            + "import dev.safetensors.spi.UploadOptions;\n"
            + "import java.nio.ByteBuffer;\n"
            + "import java.util.ServiceLoader;\n"
            + "public class Probe {\n"
            + "    public static void main(String[] args) throws Exception {\n"
            + "        Location output = Location.parse(args[1]);\n"
            + "        for (ObjectWriterProvider w : ServiceLoader.load(ObjectWriterProvider.class)) {\n"
            + "            if (w.supports(output)) {\n"
            + "                try (ObjectUpload upload = w.create(output, UploadOptions.DEFAULT)) {\n"
            + "                    upload.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));\n"
            + "                    System.out.println(\"WROTE \" + w.getClass().getModule().getName() + \" size=\"\n"
            + "                            + upload.commit().size());\n"
            + "                }\n"
            + "                ((AutoCloseable) w).close();\n"
            + "            }\n"
            + "        }\n"
            + "        Location uri = Location.parse(args[0]);\n"
            + "        for (RandomAccessSourceProvider p : ServiceLoader.load(RandomAccessSourceProvider.class)) {\n"
            + "            if (p.supports(uri)) {\n"
            + "                Module m = p.getClass().getModule();\n"
            + "                try (RandomAccessSource s = p.open(uri)) {\n"
            + "                    int n = s.read(0, ByteBuffer.allocate(64));\n"
            + "                    System.out.println(\"RESULT \" + m.getName() + \" automatic=\"\n"
            + "                            + m.getDescriptor().isAutomatic() + \" read=\" + n + \" size=\" + s.size());\n"
            + "                }\n"
            + "                return;\n"
            + "            }\n"
            + "        }\n"
            + "        System.out.println(\"RESULT no provider\");\n"
            + "    }\n"
            + "}\n";

    @Test
    void anApplicationModuleFindsAndUsesTheProvider(@TempDir Path dir) throws Exception {
        Path gcsJar = Path.of(System.getProperty("safetensors.gcs.jar"));
        assertTrue(Files.isRegularFile(gcsJar), gcsJar.toString());
        List<String> classPath = Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator));
        String apiJar = classPath.stream()
                .filter(e -> e.contains("safetensors-api") && !e.contains("test-classes") && !e.endsWith("-tests.jar"))
                .findFirst().orElseThrow();
        String googleJars = classPath.stream()
                .filter(e -> !e.contains("safetensors-") && !e.contains("test-classes") && !e.endsWith("classes"))
                .collect(Collectors.joining(File.pathSeparator));

        Path src = dir.resolve("src");
        Path out = dir.resolve("out");
        Files.createDirectories(src.resolve("probe"));
        Files.writeString(src.resolve("module-info.java"), MODULE_INFO);
        Files.writeString(src.resolve("probe/Probe.java"), PROBE);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int compiled = javac.run(null, null, null, "--release", "17", "--module-path", apiJar, "-d", out.toString(),
                src.resolve("module-info.java").toString(), src.resolve("probe/Probe.java").toString());
        assertEquals(0, compiled, "the probe module compiles against dev.safetensors.api alone");

        try (GcsTestServer server = new GcsTestServer()) {
            server.wireMock.stubFor(any(anyUrl()).willReturn(aResponse().withTransformers(FakeGcsObjects.NAME)));
            FakeGcsObjects.put("emu", "models/m.safetensors", new byte[100], 3);
            ProcessBuilder child = new ProcessBuilder(ChildJvm.command(
                    "--module-path", String.join(File.pathSeparator, out.toString(), apiJar, gcsJar.toString()),
                    "--add-modules", "dev.safetensors.gcs",
                    "-cp", googleJars,
                    "-m", "probe/probe.Probe", "gs://emu/models/m.safetensors", "gs://emu/models/written.bin"))
                    .redirectErrorStream(true);
            child.environment().put("STORAGE_EMULATOR_HOST", "127.0.0.1:" + server.wireMock.port());
            Process process = child.start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), output);
            assertEquals(0, process.exitValue(), output);
            assertTrue(output.contains("RESULT dev.safetensors.gcs automatic=true read=64 size=100"), output);
            assertTrue(output.contains("WROTE dev.safetensors.gcs size=3"), output);
            assertEquals(3, FakeGcsObjects.stored("emu", "models/written.bin").content().length);
        }
    }
}
