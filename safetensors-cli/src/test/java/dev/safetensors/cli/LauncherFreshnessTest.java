package dev.safetensors.cli;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How {@code bin/safetensors} decides that the built layout is older than the sources, on a checkout laid out by the
 * test (the real launcher script, empty jars, a {@code java} that only says it ran), with
 * {@code SAFETENSORS_NO_BUILD} set so that a stale layout is an exit code instead of a build. Every module the command
 * is built from counts, the signing module's included; the reference is the stamp the cli module's package phase
 * leaves (which {@link LauncherIT} checks on the real build), not the cli jar, which Maven does not rewrite when only
 * another module changed.
 */
class LauncherFreshnessTest {
    private static final List<String> MODULES = List.of("api", "core", "http", "signing", "s3", "gcs", "azure", "cli");
    private static final Instant SOURCES = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path root;

    @BeforeEach
    void checkout() throws IOException {
        Files.createDirectories(root.resolve("bin"));
        Path launcher = Files.copy(Path.of("../bin/safetensors"), root.resolve("bin/safetensors"));
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        at(Files.writeString(root.resolve("pom.xml"), "<project/>"), 0);
        for (String module : MODULES) {
            Path folder = Files.createDirectories(root.resolve("safetensors-" + module + "/src/main/java"));
            at(Files.writeString(folder.resolve("A.java"), "class A {}"), 0);
            // folders count too (a file added or removed changes its folder's time)
            at(folder, 0);
            at(folder.getParent(), 0);
            at(Files.writeString(root.resolve("safetensors-" + module + "/pom.xml"), "<project/>"), 0);
        }
        Path target = root.resolve("safetensors-cli/target");
        Files.createDirectories(target.resolve("lib/modules"));
        Files.createDirectories(target.resolve("lib/backends"));
        at(Files.write(target.resolve("safetensors-cli-1.jar"), new byte[0]), 10);
        at(Files.write(target.resolve("lib/.built"), new byte[0]), 20);
        Path java = Files.createDirectories(root.resolve("jdk/bin")).resolve("java");
        Files.writeString(java, "#!/bin/sh\necho ran\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private static Path at(Path file, int seconds) throws IOException {
        return Files.setLastModifiedTime(file, FileTime.from(SOURCES.plusSeconds(seconds)));
    }

    private Cli.Run launch() throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(root.resolve("bin/safetensors").toString(), "--version");
        pb.environment().put("JAVA_HOME", root.resolve("jdk").toString());
        pb.environment().put("SAFETENSORS_NO_BUILD", "1");
        pb.environment().put("SAFETENSORS_NO_CDS", "1");
        Path out = Files.createTempFile(root, "out", ".txt");
        Path err = Files.createTempFile(root, "err", ".txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the launcher ends");
        return new Cli.Run(p.exitValue(), Files.readAllBytes(out), Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void aLayoutNewerThanEverySourceRuns() throws Exception {
        Cli.Run run = launch();
        assertEquals(0, run.exit(), run.stderr());
        assertEquals("ran", run.out().strip());
    }

    @Test
    void aSigningSourceNewerThanTheLastBuildIsStale() throws Exception {
        at(root.resolve("safetensors-signing/src/main/java/A.java"), 30);
        Cli.Run run = launch();
        assertEquals(3, run.exit(), run.out());
        assertTrue(run.stderr().contains("older than the sources"), run.stderr());
    }

    @Test
    void aBackendSourceNewerThanTheCliJarButOlderThanThePackageStampRuns() throws Exception {
        // an incremental package after a change to one backend: its jar is rebuilt, the cli jar is not
        at(root.resolve("safetensors-s3/src/main/java/A.java"), 15);
        Cli.Run run = launch();
        assertEquals(0, run.exit(), run.stderr());
    }
}
