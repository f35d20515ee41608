package dev.safetensors.core;

import dev.safetensors.fixtures.ChildJvm;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The commit protocol under SIGKILL: a child JVM ({@link CommitChild}; a child because the kill is what is under
 * test) writes a new checkpoint over an old one and stops at commit step N, where the test kills it with
 * {@code destroyForcibly()}; for every N from before the commit point to after the journal's deletion. What loads
 * afterwards, once {@link CommitJournal#recover} has run, is wholly the old checkpoint (killed before the commit
 * point) or wholly the new one, every tensor byte compared; before the commit point, the old one loads without any
 * recovery, and after it a read before recovery is refused ({@code INTERRUPTED_COMMIT}), never shown the mix.
 */
class CommitKillTest {
    @TempDir
    Path root;

    /** Issue 23's case, the same file names rewritten in place, in the fast tier. */
    @ParameterizedTest
    @EnumSource(value = CommitScenario.class, names = "IN_PLACE")
    void aKillAtAnyStepLeavesTheOldOrTheNewCheckpointWhole(CommitScenario scenario) throws Exception {
        killAtEveryStep(scenario);
    }

    /**
     * The layout changes (one file to shards, shards to one file), in the slow tier: each kill is a child JVM, and
     * these two sweeps start two thirds of them.
     */
    @Tag("slow")
    @ParameterizedTest
    @EnumSource(value = CommitScenario.class, names = "IN_PLACE", mode = EnumSource.Mode.EXCLUDE)
    void aKillAtAnyStepOfALayoutChangeLeavesOneLayoutWhole(CommitScenario scenario) throws Exception {
        killAtEveryStep(scenario);
    }

    private void killAtEveryStep(CommitScenario scenario) throws Exception {
        int steps = scenario.writer(true).fileNames().size() + 3;
        for (int stop = 0; stop <= steps + 1; stop++) {
            Path dir = Files.createDirectory(root.resolve(scenario + "-" + stop));
            scenario.writer(false).writeTo(dir);
            assertWhole(CommitScenario.tensors(false), CommitScenario.load(dir), "the old checkpoint, written");
            boolean finished = runAndKill(scenario, dir, stop);
            assertEquals(stop > steps, finished, "step " + stop + " of " + steps + " is reached");
            if (stop == 0) {
                assertWhole(CommitScenario.tensors(false), CommitScenario.load(dir),
                        "killed before the commit point, without recovery");
            }
            boolean left = stop >= 1 && stop < steps;
            if (left) {
                dev.safetensors.StorageException e = org.junit.jupiter.api.Assertions.assertThrows(
                        dev.safetensors.StorageException.class, () -> CommitScenario.load(dir));
                assertEquals(dev.safetensors.ErrorCode.INTERRUPTED_COMMIT, e.code(), "a read before recovery is"
                        + " refused after step " + stop);
            }
            int recovered = CommitJournal.recover(dir).size();
            assertEquals(left ? 1 : 0, recovered, "a journal is left after step " + stop);
            Map<String, byte[]> loaded = CommitScenario.load(dir);
            assertWhole(CommitScenario.tensors(stop >= 1), loaded, "killed at step " + stop + " of " + steps);
            try (var files = Files.list(dir)) {
                List<String> names = files.map(p -> p.getFileName().toString()).sorted().toList();
                List<String> expected = stop >= 1 ? scenario.writer(true).fileNames().stream().sorted().toList()
                        : scenario.writer(false).fileNames().stream().sorted().toList();
                List<String> kept = names.stream().filter(n -> !n.endsWith(".tmp")).toList();
                assertEquals(expected, kept, "only the files of one layout are left after step " + stop);
                if (stop >= 1) {
                    assertFalse(names.stream().anyMatch(n -> n.endsWith(".tmp")), "no temporary file is left once"
                            + " committed: " + names);
                }
            }
        }
    }

    /**
     * SIGTERM at every step, the write then going on while the JVM shuts down: the shutdown cleanup and the
     * roll-forward hook leave the old checkpoint (cleanup first, commit refused) or the new one, and no journal.
     */
    @Tag("slow")
    @ParameterizedTest
    @EnumSource(value = CommitScenario.class, names = "IN_PLACE")
    void aSigtermAtAnyStepLeavesAWholeCheckpointAndNoJournal(CommitScenario scenario) throws Exception {
        int steps = scenario.writer(true).fileNames().size() + 3;
        for (int stop = 0; stop <= steps; stop++) {
            Path dir = Files.createDirectory(root.resolve("term-" + stop));
            scenario.writer(false).writeTo(dir);
            Process p = java(scenario.name(), dir.toString(), String.valueOf(stop), "term");
            try {
                BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                        StandardCharsets.UTF_8));
                String line = CompletableFuture.supplyAsync(() -> {
                    try {
                        return r.readLine();
                    } catch (IOException e) {
                        return "read failed: " + e;
                    }
                }).get(120, TimeUnit.SECONDS);
                assertEquals("stopped " + stop, line, "the child stops at the step");
                p.destroy();
                p.getOutputStream().close();
                assertTrue(p.waitFor(120, TimeUnit.SECONDS), "SIGTERM ends the child");
            } finally {
                p.destroyForcibly();
            }
            assertEquals(0, CommitJournal.recover(dir).size(), "no journal is left after SIGTERM at step " + stop);
            Map<String, byte[]> loaded = CommitScenario.load(dir);
            boolean isNew = java.util.Arrays.equals(loaded.get("a"), CommitScenario.tensors(true).get("a"));
            if (stop >= 1) {
                assertTrue(isNew, "committed before SIGTERM at step " + stop + ": the new checkpoint");
            }
            assertWhole(CommitScenario.tensors(isNew), loaded, "SIGTERM at step " + stop);
        }
    }

    private static void assertWhole(Map<String, byte[]> expected, Map<String, byte[]> loaded, String when) {
        assertEquals(expected.keySet(), loaded.keySet(), when + ": the tensor names");
        for (Map.Entry<String, byte[]> e : expected.entrySet()) {
            assertArrayEquals(e.getValue(), loaded.get(e.getKey()), when + ": every byte of " + e.getKey());
        }
    }

    /** @return whether the child finished on its own (its stop step was never reached) */
    private static boolean runAndKill(CommitScenario scenario, Path dir, int stop) throws Exception {
        Process p = java(scenario.name(), dir.toString(), String.valueOf(stop));
        try {
            BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line = CompletableFuture.supplyAsync(() -> {
                try {
                    return r.readLine();
                } catch (IOException e) {
                    return "read failed: " + e;
                }
            }).get(120, TimeUnit.SECONDS);
            if ("done".equals(line)) {
                assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the child ends after its write");
                assertEquals(0, p.exitValue(), "the child's write succeeded");
                return true;
            }
            assertEquals("stopped " + stop, line, "the child stops at the step");
            p.destroyForcibly();
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "SIGKILL ends the child");
            return false;
        } finally {
            p.destroyForcibly();
        }
    }

    private static Process java(String... args) throws Exception {
        List<String> command = new ArrayList<>(ChildJvm.command("-Xmx64m", "-cp",
                ChildJvm.testClassPath(CommitChild.class), CommitChild.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }
}
