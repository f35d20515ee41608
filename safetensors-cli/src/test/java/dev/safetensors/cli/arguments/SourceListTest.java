package dev.safetensors.cli.arguments;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;
import tools.jackson.databind.JsonNode;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.safetensors.cli.output.UsageJson;
import dev.safetensors.cli.InProcess;
import dev.safetensors.cli.Cli;
import dev.safetensors.cli.Fixtures;

/** Lists of sources ({@code -}, {@code --from-file}) are read a bounded line at a time; selection options repeat. */
class SourceListTest {
    @TempDir
    Path dir;

    /** Zeros without end, as {@code /dev/zero}, counting what was taken from it. */
    private static final class Endless extends InputStream {
        long read;

        @Override
        public int read() {
            read++;
            return 0;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            read += len;
            return len;
        }
    }

    @Test
    void anEndlessLineIsAUsageErrorNamingItWithoutReadingPastTheBound() {
        Endless zeros = new Endless();
        SourceArguments.LineReader lines = new SourceArguments.LineReader(zeros, "standard input");
        UsageException e = assertThrows(UsageException.class, lines::readLine);
        assertTrue(e.getMessage().contains("standard input: line 1 is longer than "
                + SourceArguments.DEFAULT_MAX_LINE_BYTES + " bytes"), e.getMessage());
        assertTrue(zeros.read <= SourceArguments.DEFAULT_MAX_LINE_BYTES + 4096, zeros.read + " bytes read");
    }

    @Test
    void linesEndAtLfCrOrCrLfAndALineAtTheBoundIsRead() throws IOException {
        String longest = "a".repeat(SourceArguments.DEFAULT_MAX_LINE_BYTES);
        SourceArguments.LineReader lines = new SourceArguments.LineReader(new ByteArrayInputStream(("x\r\ny\rz\n\n"
                + longest + "\n" + longest + "b").getBytes(StandardCharsets.UTF_8)), "list");
        for (String expected : List.of("x", "y", "z", "", longest)) {
            assertEquals(expected, lines.readLine());
        }
        UsageException e = assertThrows(UsageException.class, lines::readLine);
        assertTrue(e.getMessage().startsWith("list: line 6 is longer than"), e.getMessage());

        SourceArguments.LineReader last = new SourceArguments.LineReader(new ByteArrayInputStream(
                "é/a.safetensors".getBytes(StandardCharsets.UTF_8)), "list");
        assertEquals("é/a.safetensors", last.readLine());
        assertNull(last.readLine());
    }

    @Test
    @ResourceLock("java.lang.System.in")
    void validateDashOfAnEndlessStreamEndsAsAUsageError() {
        InputStream saved = System.in;
        Endless zeros = new Endless();
        System.setIn(zeros);
        try {
            Cli.Run run = InProcess.run("validate", "--json", "-").exits(2);
            assertTrue(run.stderr().contains("standard input: line 1 is longer than"), run.describe());
            assertEquals(UsageJson.CODE, run.json().get(0).get("code").asString(), run.describe());
            assertTrue(zeros.read <= SourceArguments.DEFAULT_MAX_LINE_BYTES + 4096, zeros.read + " bytes read");
        } finally {
            System.setIn(saved);
        }
    }

    @Test
    void aLineThatIsNotUtf8IsAUsageErrorNamingIt() throws IOException {
        Path good = Fixtures.write(dir, "a.safetensors", Fixtures.small().build());
        Path list = dir.resolve("list.txt");
        byte[] first = (good + "\n").getBytes(StandardCharsets.UTF_8);
        byte[] second = {'b', (byte) 0xC3, '(', '\n'};
        byte[] both = new byte[first.length + second.length];
        System.arraycopy(first, 0, both, 0, first.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        Files.write(list, both);
        Cli.Run run = InProcess.run("validate", "--from-file", list.toString()).exits(2);
        assertTrue(run.stderr().contains("--from-file " + list + ": line 2 is not UTF-8"), run.describe());
    }

    @Test
    void includeAndExcludeMayEachBeGivenMoreThanOnce() {
        Fixtures.write(dir, "a.safetensors", Fixtures.small().build());
        Fixtures.write(dir, "b.safetensors", Fixtures.small().build());
        Fixtures.write(dir, "c.safetensors", Fixtures.small().build());
        Fixtures.write(dir, "ab.safetensors", Fixtures.small().build());
        Cli.Run run = InProcess.run("validate", "--json", "--include", "a*", "--include", "b*", "--exclude", "ab*",
                "--exclude", "c*", dir + "/").exits(0);
        Set<String> names = new TreeSet<>();
        for (JsonNode n : run.json()) {
            names.add(Path.of(n.get("source").asString()).getFileName().toString());
        }
        assertEquals(Set.of("a.safetensors", "b.safetensors"), names, run.describe());
        for (String command : List.of("inspect", "manifest")) {
            InProcess.run(command, "--include", "a*", "--include", "b*", dir + "/").exits(0);
        }
    }
}
