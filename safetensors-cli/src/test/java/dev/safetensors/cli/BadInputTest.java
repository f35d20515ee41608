package dev.safetensors.cli;

import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a new user feeds the command by mistake, each run in-process through {@link Main#run}: one clear line that
 * says what is wrong (and what to do), the right exit code, and no stack trace.
 */
class BadInputTest {
    @TempDir
    Path dir;

    /** Runs {@code validate} on one source and checks the single line it prints. */
    private Cli.Run single(Path source, int exit, String status, String code, String... phrases) {
        return single(source.toString(), exit, status, code, phrases);
    }

    private Cli.Run single(String source, int exit, String status, String code, String... phrases) {
        Cli.Run run = InProcess.run("validate", source).exits(exit);
        List<String> lines = exit == 3 ? run.errLines() : run.outLines();
        List<String> other = exit == 3 ? run.outLines() : run.errLines();
        assertEquals(1, lines.size(), run.describe());
        assertEquals(List.of(), other, run.describe());
        String line = lines.get(0);
        assertTrue(line.startsWith(String.format("%-11s %s: ", status, source)), run.describe());
        assertTrue(code.isEmpty() || line.endsWith("[" + code + "]"), run.describe());
        for (String phrase : phrases) {
            assertTrue(line.contains(phrase), phrase + "\n" + run.describe());
        }
        assertTrue(!run.stderr().contains("\tat "), run.describe());
        return run;
    }

    @Test
    void missingFile() {
        single(dir.resolve("nope.safetensors"), 3, "ERROR", "NOT_FOUND", "no such file", "check the path");
    }

    @Test
    void aDirectoryIsListedAndAFolderNamedLikeAFileInItIsNotAFile() throws IOException {
        Path folder = Files.createDirectories(dir.resolve("listed"));
        Files.createDirectories(folder.resolve("old.safetensors"));
        Files.createDirectories(folder.resolve("plain-subfolder"));
        Cli.Run run = InProcess.run("validate", folder.toString()).exits(3);
        assertEquals(1, run.errLines().size() - 1, "one error line, then the summary\n" + run.describe());
        assertTrue(run.errLines().get(0).startsWith("ERROR       " + folder.resolve("old.safetensors")),
                run.describe());
        assertTrue(run.errLines().get(0).endsWith("[NOT_A_FILE]"), run.describe());
        // plain-subfolder, one level down, was not entered; the folder named like a file was reported
        assertEquals("safetensors: 1 result: 1 error; listing: 0 requests; not entered: 1 subfolder or prefix"
                + " (--recursive lists them)", run.errLines().get(1), run.describe());
    }

    @Test
    void emptyFile() throws IOException {
        Path empty = Files.createFile(dir.resolve("empty.safetensors"));
        single(empty, 1, "INVALID", "HEADER_TOO_SMALL", "0 bytes", "download it again");
    }

    @Test
    void gitLfsPointer() {
        Path lfs = Fixtures.write(dir, "lfs.safetensors", "version https://git-lfs.github.com/spec/v1\n"
                + "oid sha256:4d7a2146b4d9f2c2bf5e3a8c7b1f0e9d6c5b4a3928171605f4e3d2c1b0a99887\nsize 548105171\n");
        single(lfs, 1, "INVALID", "NOT_SAFETENSORS", "Git LFS pointer", "git lfs pull");
    }

    @Test
    void htmlErrorPage() {
        Path html = Fixtures.write(dir, "model.safetensors", "<!DOCTYPE html>\n<html><head><title>404 Not Found"
                + "</title></head><body>Not Found</body></html>\n");
        single(html, 1, "INVALID", "NOT_SAFETENSORS", "HTML or XML page");
    }

    @Test
    void truncatedDownload() {
        byte[] whole = Fixtures.small().build();
        Path cut = Fixtures.write(dir, "cut.safetensors", Arrays.copyOf(whole, whole.length - 10));
        single(cut, 1, "INVALID", "OUT_OF_FILE", "truncated download", "download it again");
        Path headerCut = Fixtures.write(dir, "headercut.safetensors", Arrays.copyOf(whole, 40));
        single(headerCut, 1, "INVALID", "HEADER_EXCEEDS_FILE", "truncated download");
    }

    @Test
    void unreadableFile() throws IOException {
        Path locked = Fixtures.write(dir, "locked.safetensors", Fixtures.small().build());
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("---------"));
        if (Files.isReadable(locked)) {
            // root reads a mode-000 file anyway: what is true is that the command reads it too
            single(locked, 0, "OK", "", "3 tensors");
        } else {
            single(locked, 3, "ERROR", "ACCESS_DENIED", "permission denied");
        }
    }

    @Test
    void danglingSymlinkAndFifoAreUnreadableWithoutBlocking() throws Exception {
        Path link = Files.createSymbolicLink(dir.resolve("link.safetensors"), dir.resolve("gone.safetensors"));
        single(link, 3, "ERROR", "NOT_FOUND", "symbolic link", "does not exist");
        Path fifo = dir.resolve("pipe.safetensors");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, mkfifo.waitFor());
        // opening a FIFO for reading would block until a writer comes: the command must refuse it instead
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> single(fifo, 3, "ERROR", "NOT_A_FILE", "FIFO"));
    }

    @Test
    void malformedRemoteSourcesNameWhatIsWrongOnce() {
        Cli.Run run = single("s3://bucket", 3, "ERROR", "INVALID_SOURCE", "the object key is empty");
        assertEquals("ERROR       s3://bucket: the object key is empty [INVALID_SOURCE]", run.errLines().get(0));
        run = single("gs://models/m.safetensors#abc", 3, "ERROR", "INVALID_SOURCE");
        assertEquals("ERROR       gs://models/m.safetensors#abc: the generation must be a decimal number, not 'abc'"
                + " [INVALID_SOURCE]", run.errLines().get(0));
        single("hf://acme", 3, "ERROR", "INVALID_SOURCE", "not a Hub reference");
        Cli.Run credentials = InProcess.run("validate", "https://user:secret@example.com/m.safetensors").exits(3);
        assertEquals(List.of("ERROR       https://example.com/m.safetensors: credentials in the URL are not supported"
                + " [INVALID_SOURCE]"), credentials.errLines(), "named without its credentials\n"
                + credentials.describe());
    }

    @Test
    void unknownScheme() {
        single("ftp://example.com/model.safetensors", 3, "ERROR", "UNSUPPORTED_SCHEME", "no storage backend",
                "gs:", "https:", "hf:", "s3:");
    }

    @Test
    void sparseTwoGibibyteFileIsCheckedFromItsHeaderAlone() {
        long payload = 2L << 30;
        Path sparse = Fixtures.sparse(dir.resolve("sparse.safetensors"),
                SafetensorsFixture.create().tensor("w", "F32", payload / 4).headerJson(), payload);
        single(sparse, 0, "OK", "", "1 tensor", "537 M parameters", "2.1 GB");
        Cli.Run json = InProcess.run("validate", "--json", sparse.toString()).exits(0);
        // one read of the 128 KiB prefix, whatever the file's size
        assertEquals(1, json.json().get(0).get("requests").asInt(), json.describe());
        assertEquals(128 * 1024, json.json().get(0).get("bytes_read").asLong(), json.describe());
    }
}
