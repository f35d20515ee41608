package dev.safetensors.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.safetensors.cli.arguments.ArgumentParser;
import dev.safetensors.cli.commands.Subcommand;

/**
 * Keeps the command's documentation honest: every {@code bin/safetensors ...} line of README.md, docs/cli.md,
 * docs/hub.md, docs/spark.md and docs/storage.md (and, inside a fenced block, a line that starts
 * {@code safetensors ...}; a line ending in {@code \} goes on on the next) runs in-process, against the sample data in
 * {@code examples/data} (the signing lines' {@code my-model/} and key files made here), and ends with the exit code
 * the docs show (after {@code $ echo $?}, or as {@code (exit N)}
 * in its output; 0 when they show none). A line whose comment starts with {@code (remote)} needs a store or the Hub:
 * it is not run, but its options must parse. The inputs the "Bad input" and index sections name
 * ({@code downloads/...}, {@code shards/}, {@code hostile/}) are made here as the docs describe them;
 * {@code /tmp/...} outputs and {@code > FILE} redirections go to a temporary folder. A token in single quotes is
 * passed as written (a glob the command expands itself, such as {@code --include 'sample*'}).
 */
class DocExamplesTest {
    private static final Path ROOT = Path.of("..");
    private static final Pattern COMMAND = Pattern.compile("^(?:\\$ )?bin/safetensors (.*)$");
    /** A command written without {@code bin/}, taken only inside a fenced block (prose starts lines so too). */
    private static final Pattern BARE = Pattern.compile("^(?:\\$ )?safetensors (.*)$");
    /** The documents whose command lines are checked. */
    private static final List<String> DOCS = List.of("README.md", "docs/cli.md", "docs/hub.md", "docs/spark.md",
            "docs/storage.md");
    /** A location of a store or of the Hub, which a line must mark {@code (remote)}. */
    private static final Pattern REMOTE = Pattern.compile(".*\\b(s3|gs|hf|https?|az|azure|abfss?)://.*");
    private static final Pattern EXIT = Pattern.compile("\\(exit (\\d+)");
    private static final Pattern ECHO = Pattern.compile("^\\$ echo \\$\\?$");

    @TempDir
    Path tmp;

    /** One documented command line and the exit code the docs give it. */
    private record Example(String file, int line, String text, int exit, boolean remote) {
        String where() {
            return file + ":" + line + ": bin/safetensors " + text;
        }
    }

    private static List<Example> examples(String file) throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve(file));
        List<Example> all = new ArrayList<>();
        boolean fenced = false;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            Matcher m = COMMAND.matcher(lines.get(i));
            if (!m.matches()) {
                m = BARE.matcher(lines.get(i));
                if (!fenced || !m.matches()) {
                    continue;
                }
            }
            String text = m.group(1);
            for (int j = i + 1; text.endsWith("\\") && j < lines.size(); j++) {
                text = text.substring(0, text.length() - 1) + " " + lines.get(j).strip();
            }
            int hash = text.indexOf(" #");
            String comment = hash < 0 ? "" : text.substring(hash + 2).strip();
            text = (hash < 0 ? text : text.substring(0, hash)).strip();
            int exit = 0;
            for (int j = i + 1; j < lines.size() && !lines.get(j).startsWith("```"); j++) {
                String next = lines.get(j);
                if (ECHO.matcher(next).matches() && j + 1 < lines.size()) {
                    exit = Integer.parseInt(lines.get(j + 1).strip());
                    break;
                }
                if (next.startsWith("$ ") || COMMAND.matcher(next).matches()) {
                    break;
                }
                Matcher code = EXIT.matcher(next);
                if (code.find()) {
                    exit = Integer.parseInt(code.group(1));
                    break;
                }
            }
            all.add(new Example(file, i + 1, text, exit, comment.startsWith("(remote)")));
        }
        return all;
    }

    @Test
    void everyCommandLineOfTheReadmeAndTheReferenceRunsAsDocumented() throws Exception {
        makeTheInputsTheDocsDescribe();
        List<Example> all = new ArrayList<>();
        for (String doc : DOCS) {
            all.addAll(examples(doc));
        }
        assertTrue(all.size() > 20, "the docs have command lines: " + all.size());
        // the commands that write a file others read (manifest > FILE) first
        List<Example> ordered = new ArrayList<>(all.stream().filter(e -> e.text().contains(" > ")).toList());
        all.stream().filter(e -> !e.text().contains(" > ")).forEach(ordered::add);
        int ran = 0;
        for (Example e : ordered) {
            if (e.remote()) {
                assertParses(e);
                continue;
            }
            run(e);
            ran++;
        }
        assertTrue(ran > 20, ran + " run");
    }

    @Test
    void remoteLinesAreMarkedAndLocalLinesReadTheSampleData() throws IOException {
        List<Example> all = new ArrayList<>();
        for (String doc : DOCS) {
            all.addAll(examples(doc));
        }
        for (String doc : List.of("docs/hub.md", "docs/storage.md")) {
            assertTrue(all.stream().anyMatch(e -> e.file().equals(doc)), "command lines found in " + doc);
        }
        for (Example e : all) {
            boolean names = REMOTE.matcher(e.text()).matches();
            assertEquals(names, e.remote(), "a line is marked (remote) exactly when it names a remote: " + e.where());
        }
    }

    private void assertParses(Example e) {
        List<String> args = arguments(e, null);
        Subcommand command = SafetensorsCommand.named(args.get(0), new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(new ByteArrayOutputStream()));
        assertTrue(command != null, "a command: " + e.where());
        ArgumentParser.parse(command.spec(), args.subList(1, args.size()));
    }

    private void run(Example e) throws IOException {
        Path[] redirect = new Path[1];
        List<String> args = arguments(e, redirect);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Main.run(args.toArray(new String[0]), new PrintStream(out, false, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        if (redirect[0] != null) {
            Files.write(redirect[0], out.toByteArray());
        }
        String stderr = err.toString(StandardCharsets.UTF_8);
        assertEquals(e.exit(), exit, e.where() + "\nran: " + args + "\nstdout: " + out.toString(StandardCharsets.UTF_8)
                + "\nstderr: " + stderr);
        assertFalse(stderr.contains("internal error") || stderr.contains("\tat "), e.where() + "\n" + stderr);
    }

    /** The arguments as the shell would pass them, with paths moved to where they are here. */
    private List<String> arguments(Example e, Path[] redirect) {
        assertFalse(e.text().contains("\""), "no double quotes in examples: " + e.where());
        List<String> args = new ArrayList<>();
        String[] tokens = e.text().split("\\s+");
        for (int i = 0; i < tokens.length; i++) {
            String t = tokens[i];
            if (t.length() > 1 && t.startsWith("'") && t.endsWith("'")) {
                args.add(t.substring(1, t.length() - 1));  // quoted: the command sees it as written
                continue;
            }
            assertFalse(t.contains("'"), "a quoted token holds no space: " + e.where());
            if (t.equals("|")) {
                break;                          // what follows reads the output: od, head
            }
            if (t.equals(">")) {
                if (redirect != null) {
                    redirect[0] = local(tokens[i + 1]);
                }
                break;
            }
            if (t.contains("*")) {
                args.addAll(glob(local(t)));
            } else {
                args.add(e.remote() ? t : local(t).toString().equals(t) ? t : local(t).toString());
            }
        }
        return args;
    }

    /** @return where a path of the docs is here: the sample data under the root, the rest in the temporary folder */
    private Path local(String path) {
        if (path.startsWith("examples/")) {
            return ROOT.resolve(path);
        }
        if (path.startsWith("/tmp/")) {
            return tmp.resolve(path.substring(5));
        }
        if (path.startsWith("downloads") || path.startsWith("shards/") || path.startsWith("hostile/")
                || path.equals("manifest.json") || path.equals("resharded") || path.startsWith("my-model/")
                || path.startsWith("signing-key.")) {
            return tmp.resolve(path);
        }
        return Path.of(path);
    }

    private static List<String> glob(Path pattern) {
        List<String> matches = new ArrayList<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(pattern.getParent(),
                pattern.getFileName().toString())) {
            dir.forEach(p -> matches.add(p.toString()));
        } catch (IOException e) {
            throw new AssertionError("cannot expand " + pattern, e);
        }
        matches.sort(null);
        assertFalse(matches.isEmpty(), "the glob matches: " + pattern);
        return matches;
    }

    /** The files of "Bad input" and of the index section, made as the docs describe them. */
    private void makeTheInputsTheDocsDescribe() throws Exception {
        byte[] sample = Files.readAllBytes(ROOT.resolve("examples/data/sample.safetensors"));
        Path downloads = Files.createDirectories(tmp.resolve("downloads"));
        Files.write(downloads.resolve("empty.safetensors"), new byte[0]);
        Files.writeString(downloads.resolve("lfs-pointer.safetensors"), "version https://git-lfs.github.com/spec/v1\n"
                + "oid sha256:e3bcd64289d543bd0f08e60899e1e9fdc15ba911ac02c6ffd160b01092b31bfd\nsize 482\n");
        Files.writeString(downloads.resolve("error-page.safetensors"), "<!DOCTYPE html><html><body>Sign in</body>"
                + "</html>\n");
        // position_ids is the last tensor, 32 bytes: cut them off
        Files.write(downloads.resolve("truncated.safetensors"), java.util.Arrays.copyOf(sample, sample.length - 32));
        Files.createSymbolicLink(downloads.resolve("dangling.safetensors"), tmp.resolve("gone.safetensors"));
        Process mkfifo = new ProcessBuilder("mkfifo", downloads.resolve("pipe.safetensors").toString()).start();
        assertTrue(mkfifo.waitFor(30, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");
        String header = "{\"w\":{\"dtype\":\"F32\",\"shape\":[536870912],\"data_offsets\":[0,2147483648]}}";
        try (RandomAccessFile sparse = new RandomAccessFile(downloads.resolve("sparse-2GiB.safetensors").toFile(),
                "rw")) {
            byte[] json = header.getBytes(StandardCharsets.UTF_8);
            sparse.write(java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN)
                    .putLong(json.length).array());
            sparse.write(json);
            sparse.setLength(8 + json.length + 2147483648L);
        }
        // the signing examples' model and key: the sample checkpoint, and a key pair as the docs' openssl lines make
        Path model = Files.createDirectories(tmp.resolve("my-model"));
        try (var files = Files.list(ROOT.resolve("examples/data/sharded"))) {
            for (Path f : files.toList()) {
                Files.copy(f, model.resolve(f.getFileName().toString()));
            }
        }
        TestKeys.write(tmp, "signing-key");
        String index = Files.readString(ROOT.resolve("examples/data/sharded/model.safetensors.index.json"));
        String first = "\"embed.weight\" : \"model-00001-of-00002.safetensors\"";
        assertTrue(index.contains(first), "the sample index maps embed.weight to the first shard");
        for (String folder : new String[] {"shards", "hostile"}) {
            Path dir = Files.createDirectories(tmp.resolve(folder));
            for (String shard : new String[] {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}) {
                Files.copy(ROOT.resolve("examples/data/sharded").resolve(shard), dir.resolve(shard));
            }
        }
        Files.writeString(tmp.resolve("shards/model.safetensors.index.json"), index.replace(first,
                "\"embed.weight\" : \"model-00002-of-00002.safetensors\""));
        Files.writeString(tmp.resolve("hostile/model.safetensors.index.json"), index.replace(first,
                "\"embed.weight\" : \"../../etc/passwd\""));
    }
}
