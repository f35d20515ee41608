package dev.safetensors.cli;

import dev.safetensors.fixtures.FakeHub;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A presigned URL's credential and signature never reach any output of any subcommand, in text and JSON, with
 * {@code --debug} (stack traces and request logs) too, whether the file is valid, invalid or missing.
 */
class SignedUrlRedactionTest {
    private static final String CREDENTIAL = "AKIDREDACTIONTEST";
    private static final String SIGNATURE = "5ec7e75ec7e75ec7e75ec7e75ec7e75ec7e7";
    private static final String QUERY = "?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=" + CREDENTIAL
            + "%2F20261202%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=" + SIGNATURE;

    @TempDir
    Path dir;

    private FakeHub hub;
    private String valid;
    private String invalid;
    private String missing;

    @BeforeEach
    void serve() {
        hub = new FakeHub();
        byte[] good = Fixtures.small().build();
        byte[] bad = good.clone();
        bad[8] = '[';
        valid = hub.cdn().publish("/bucket/good.safetensors", good) + QUERY;
        invalid = hub.cdn().publish("/bucket/bad.safetensors", bad) + QUERY;
        missing = hub.cdnBase() + "/bucket/gone.safetensors" + QUERY;
    }

    @AfterEach
    void stop() {
        hub.close();
    }

    private List<String[]> runs(String url, int n) {
        Path out = dir.resolve("out-" + n);
        List<String[]> runs = new ArrayList<>();
        runs.add(new String[] {"validate", url});
        runs.add(new String[] {"inspect", url});
        runs.add(new String[] {"verify", url, "--sha256", "0".repeat(64)});
        runs.add(new String[] {"dump", url, "bias"});
        runs.add(new String[] {"reshard", url, "--out", out.resolve("reshard").toString()});
        runs.add(new String[] {"download", url, "--out", out.resolve("download").toString()});
        return runs;
    }

    @Test
    void noSubcommandPrintsTheSignatureOrTheCredentialInAnyMode() throws Exception {
        Path list = dir.resolve("list.txt");
        Files.writeString(list, valid + "\n" + invalid + "\n" + missing + "\n", StandardCharsets.UTF_8);
        int n = 0;
        int checked = 0;
        for (String url : List.of(valid, invalid, missing)) {
            for (String[] args : runs(url, n++)) {
                for (List<String> mode : List.of(List.<String>of(), List.of("--json"), List.of("--debug"),
                        List.of("--json", "--debug"))) {
                    List<String> all = new ArrayList<>(List.of(args));
                    all.addAll(1, mode);
                    Cli.Run run = InProcess.run(Map.of(), all.toArray(new String[0]));
                    assertClean(run, all);
                    if (args[0].equals("validate")) {
                        // the URL is served as written: the checks ran, so their messages were there to leak
                        int expected = url.equals(valid) ? 0 : url.equals(invalid) ? 1 : 3;
                        assertTrue(run.exit() == expected, expected + " expected: " + run.describe());
                    }
                    checked++;
                }
            }
        }
        for (String command : List.of("validate", "manifest")) {
            for (String mode : List.of("--json", "--debug")) {
                assertClean(InProcess.run(Map.of(), command, mode, "--from-file", list.toString()),
                        List.of(command, mode, "--from-file"));
                checked++;
            }
        }
        assertTrue(checked >= 76, checked + " runs");
    }

    private static void assertClean(Cli.Run run, List<String> args) {
        String all = run.out() + "\n" + run.stderr();
        assertFalse(all.contains(SIGNATURE), "the signature in the output of " + args + ":\n" + run.describe());
        assertFalse(all.contains(CREDENTIAL), "the credential in the output of " + args + ":\n" + run.describe());
    }
}
