package dev.safetensors.cli;

import dev.safetensors.CheckpointLimits;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The failure paths of issue 13, in-process through {@link Main#run}: outputs that must not be lost or destroyed,
 * write failures, locations that name nothing, and text from a file that must reach the terminal escaped.
 */
class CommandFailuresTest {
    @TempDir
    Path dir;

    private Path small() {
        return Fixtures.write(dir, "m.safetensors", Fixtures.small().build());
    }

    private static void noStackTrace(Cli.Run run) {
        assertFalse(run.stderr().contains("\tat "), run.describe());
    }

    // item 1: dump --out

    @Test
    void dumpRefusesToOverwriteItsSourceByNameHardLinkOrSymbolicLink() throws IOException {
        Path source = small();
        byte[] before = Files.readAllBytes(source);
        Path hard = Files.createLink(dir.resolve("hard.safetensors"), source);
        Path soft = Files.createSymbolicLink(dir.resolve("soft.safetensors"), source);
        for (Path out : List.of(source, hard, soft, dir.resolve(".").resolve("m.safetensors"))) {
            Cli.Run run = InProcess.run("dump", source.toString(), "weight", "--out", out.toString()).exits(3);
            assertEquals(List.of("safetensors: " + out + ": is the file being read: writing it"
                    + " would destroy the source; name another file [WRITE_FAILED]"), run.errLines(), run.describe());
            assertArrayEquals(before, Files.readAllBytes(source), "the source is intact");
        }
        assertTrue(Files.isSymbolicLink(soft));
        assertNoTemporaryFiles();
    }

    @Test
    void dumpToADirectorySaysSo() {
        Path source = small();
        Cli.Run run = InProcess.run("dump", source.toString(), "weight", "--out", dir.toString()).exits(3);
        assertEquals(List.of("safetensors: " + dir + ": is a directory: name the file to write"
                + " [WRITE_FAILED]"), run.errLines(), run.describe());
    }

    @Test
    void aFailedDumpLeavesAnExistingOutputAsItWas() throws IOException {
        Path source = small();
        Path out = Fixtures.write(dir, "out.bin", "keep me");
        InProcess.run("dump", source.toString(), "no.such.tensor", "--out", out.toString()).exits(2);
        InProcess.run("dump", "--f32", source.toString(), "step", "--out", out.toString()).exits(2);
        assertEquals("keep me", Files.readString(out));
        assertNoTemporaryFiles();
    }

    @Test
    void aSuccessfulDumpReplacesTheOutputKeepingItsPermissionsAndItsLink() throws IOException {
        Path source = small();
        Path real = Fixtures.write(dir, "real.bin", "old");
        Files.setPosixFilePermissions(real, PosixFilePermissions.fromString("rw-------"));
        Path link = Files.createSymbolicLink(dir.resolve("link.bin"), real);
        InProcess.run("dump", source.toString(), "step", "--out", link.toString()).exits(0);
        assertEquals(16, Files.size(real));
        assertTrue(Files.isSymbolicLink(link), "written through the link");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(real)));
        assertNoTemporaryFiles();
    }

    @Test
    void aWriteErrorNamesTheOutputNotTheSource() {
        Path source = small();
        Path unwritable = dir.resolve("no-such-dir").resolve("out.bin");
        Cli.Run run = InProcess.run("dump", source.toString(), "weight", "--out", unwritable.toString()).exits(3);
        assertEquals(1, run.errLines().size(), run.describe());
        assertTrue(run.errLines().get(0).startsWith("safetensors: " + unwritable + ": cannot write: "),
                run.describe());
        assertTrue(run.errLines().get(0).endsWith("[WRITE_FAILED]"), run.describe());
        assertFalse(run.stderr().contains(source.toString()), run.describe());
    }

    private void assertNoTemporaryFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(), files.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList());
        }
    }

    // item 2: stdout that cannot be written

    /** Standard output on a full disk or a closed pipe: every write fails. */
    private static final class FailingStdout extends OutputStream {
        @Override
        public void write(int b) throws IOException {
            throw new IOException("No space left on device");
        }
    }

    private Cli.Run withFailingStdout(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = InProcess.run(new FailingStdout(), err, args);
        return new Cli.Run(exit, new byte[0], err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void everyCommandExitsThreeWhenStdoutCannotBeWritten() throws IOException {
        Path source = small();
        Path manifest = dir.resolve("m.manifest.json");
        Files.write(manifest, InProcess.run("manifest", source.toString()).exits(0).stdout());
        List<List<String>> commands = List.of(
                List.of("validate", source.toString()),
                List.of("validate", "--json", source.toString()),
                List.of("inspect", source.toString()),
                List.of("inspect", "--json", "--tensors", source.toString()),
                List.of("manifest", source.toString()),
                List.of("verify", "--manifest", manifest.toString()),
                List.of("dump", source.toString(), "weight"),
                List.of("dump", "--f32", source.toString(), "weight"),
                List.of("--help"));
        for (List<String> command : commands) {
            Cli.Run run = withFailingStdout(command.toArray(String[]::new));
            assertEquals(3, run.exit(), command + "\n" + run.describe());
            assertTrue(run.stderr().contains("cannot write to standard output")
                    || run.stderr().contains("standard output: cannot write"), command + "\n" + run.describe());
            assertTrue(run.stderr().contains("[WRITE_FAILED]"), command + "\n" + run.describe());
            noStackTrace(run);
        }
    }

    // item 5: a manifest read from a pipe or a device

    @Test
    void aManifestFromADeviceIsBoundedByTheBytesRead() {
        Path zero = Path.of("/dev/zero");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(zero), "SKIPPED: no /dev/zero here");
        Cli.Run run = assertTimeoutPreemptively(Duration.ofSeconds(60),
                () -> InProcess.run("verify", "--manifest", zero.toString())).exits(2);
        assertTrue(run.stderr().contains("more than " + CheckpointLimits.DEFAULT_MAX_MANIFEST_BYTES + " bytes"), run.describe());
    }

    // item 10: locations that name nothing

    @Test
    void remoteSchemesWithNothingAfterThemOrSpacesAreInvalidSources() {
        for (String source : List.of("s3://", "hf://", "gs://", "s3://my bucket/m.safetensors",
                "hf://acme/my model")) {
            Cli.Run run = InProcess.run("validate", source).exits(3);
            assertEquals(1, run.errLines().size(), run.describe());
            assertTrue(run.errLines().get(0).startsWith("ERROR       " + source + ": not a valid URI"), run.describe());
            assertTrue(run.errLines().get(0).endsWith("[INVALID_SOURCE]"), run.describe());
        }
    }

    @Test
    void anEmptyPathSaysSo() {
        Cli.Run run = InProcess.run("validate", "").exits(3);
        assertEquals(List.of("ERROR       : empty path: name a .safetensors file [INVALID_SOURCE]"), run.errLines(),
                run.describe());
    }

    @Test
    void aSymbolicLinkLoopSaysLoop() throws IOException {
        Path a = dir.resolve("a.safetensors");
        Files.createSymbolicLink(a, dir.resolve("b.safetensors"));
        Files.createSymbolicLink(dir.resolve("b.safetensors"), a);
        Cli.Run run = InProcess.run("validate", a.toString()).exits(3);
        assertEquals(List.of("ERROR       " + a + ": symbolic links lead in a loop: fix the links or pass the file"
                + " itself [NOT_A_FILE]"), run.errLines(), run.describe());
    }

    @Test
    void oneParameterIsSingular() {
        Path one = Fixtures.write(dir, "one.safetensors", SafetensorsFixture.create().tensor("w", "F32").build());
        Cli.Run run = InProcess.run("validate", one.toString()).exits(0);
        assertEquals(List.of("OK          " + one + ": 1 tensor, 1 parameter, 68 B"), run.outLines(), run.describe());
        Cli.Run inspect = InProcess.run("inspect", one.toString()).exits(0);
        assertTrue(inspect.out().contains("1 tensor, 1 parameter\n"), inspect.describe());
        assertFalse(inspect.out().contains("1 parameters"), inspect.describe());
    }

    @Test
    void aFileWhoseNameIsNotUtf8IsOpenedAndShownEscaped() throws Exception {
        Path source = small();
        Process cp = new ProcessBuilder("bash", "-c", "cp \"$0\" \"$(printf 'w\\xff.safetensors')\"",
                source.toString()).directory(dir.toFile()).inheritIO().start();
        assertEquals(0, cp.waitFor());
        // what the JVM makes of the byte 0xFF on a UTF-8 command line
        String typed = dir + "/w\uFFFD.safetensors";
        Cli.Run run = InProcess.run("validate", typed).exits(0);
        assertEquals(List.of("OK          " + dir + "/w\\ufffd.safetensors: 3 tensors, 12 parameters, "
                + Files.size(source) + " B"), run.outLines(), run.describe());
    }

    // item 7: text from the file, escaped on every path

    @Test
    void bidiAndTerminalControlsInMetadataAreEscaped() {
        Path hostile = Fixtures.write(dir, "bidi.safetensors", SafetensorsFixture.create()
                .metadata("k\u202Eey", "va\u001B[31mlue\u2066").tensor("na\u200Bme", "F32", 1).build());
        Cli.Run run = InProcess.run("inspect", "--tensors", hostile.toString()).exits(0);
        assertTrue(run.out().contains("k\\u202eey: va\\u001b[31mlue\\u2066"), run.describe());
        assertTrue(run.out().contains("na\\u200bme"), run.describe());
        assertFalse(run.out().chars().anyMatch(c -> c == 0x1b || c == 0x202e || c == 0x2066 || c == 0x200b),
                run.describe());
    }

    @Test
    void debugOutputEscapesDtypesAndFieldNamesFromTheFile() {
        String json = "{\"w\":{\"dtype\":\"F\\u001b[2J\\u202e32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
        Path dtype = Fixtures.write(dir, "dtype.safetensors", SafetensorsFixture.file(json, 4));
        String field = "{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"x\\u001b]0;t\\u0007\":1}}";
        Path extra = Fixtures.write(dir, "field.safetensors", SafetensorsFixture.file(field, 4));
        for (Path p : List.of(dtype, extra)) {
            Cli.Run run = InProcess.run("validate", "--debug", p.toString());
            assertEquals(1, run.exit() == 1 ? 1 : run.exit(), run.describe());
            String all = run.out() + run.stderr();
            assertTrue(all.contains("\tat "), "--debug prints the stack trace\n" + run.describe());
            assertFalse(all.chars().anyMatch(c -> c == 0x1b || c == 0x07 || c == 0x202e), run.describe());
            assertTrue(all.contains("\\u001b"), run.describe());
        }
    }
}
