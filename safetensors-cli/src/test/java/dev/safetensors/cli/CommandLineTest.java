package dev.safetensors.cli;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Help of every subcommand and usage errors (exit 2), in-process. */
class CommandLineTest {

    @Test
    void everySubcommandHasHelpWithExamplesAndTheCommonOptions() {
        for (String command : new String[] {"inspect", "validate", "verify", "manifest", "dump", "reshard"}) {
            Cli.Run run = InProcess.run(command, "--help").exits(0);
            assertTrue(run.out().contains("Examples:"), run.describe());
            assertTrue(run.out().contains("safetensors " + command), run.describe());
            for (String option : new String[] {"--json", "--policy", "--max-header-bytes", "--debug"}) {
                assertTrue(run.out().contains(option), option + "\n" + run.describe());
            }
        }
    }

    @Test
    void theMainHelpAndTheHelpOfEveryReaderNameEveryStore() {
        Cli.Run main = InProcess.run("--help").exits(0);
        for (String scheme : new String[] {"s3://", "gs://", "az://", "hf://"}) {
            assertTrue(main.out().contains(scheme), scheme + "\n" + main.describe());
        }
        for (String command : new String[] {"inspect", "validate"}) {
            Cli.Run run = InProcess.run(command, "--help").exits(0);
            assertTrue(run.out().contains("az,") && run.out().contains("abfss"), run.describe());
        }
        assertTrue(InProcess.run("validate", "--help").out().contains("az://CONTAINER/PREFIX/"));
    }

    @Test
    void manyFilesTakeJobsAndCopiedTensorsTakeParts() {
        for (String command : new String[] {"inspect", "validate", "verify", "manifest"}) {
            Cli.Run run = InProcess.run(command, "--help").exits(0);
            assertTrue(run.out().contains("--jobs"), run.describe());
            assertFalse(run.out().contains("--parallel"), run.describe());
        }
        for (String command : new String[] {"dump", "reshard"}) {
            Cli.Run run = InProcess.run(command, "--help").exits(0);
            assertTrue(run.out().contains("--parallel") && run.out().contains("--part-size"), run.describe());
            assertFalse(run.out().contains("--jobs"), "a flag it would ignore\n" + run.describe());
        }
    }

    @Test
    void usageErrorsExitTwoWithOneLineAndAHint() {
        Path sample = Cli.examples().resolve("sample.safetensors");
        String[][] cases = {
            {},
            {"frobnicate"},
            {"validate"},
            {"validate", "--jobs", "0", sample.toString()},
            {"validate", "--max-header-bytes", "1", sample.toString()},
            {"validate", "--policy", "lenient", sample.toString()},
            {"verify", sample.toString()},
            {"verify", sample.toString(), "--sha256", "abc"},
            {"dump", "--binary", sample.toString(), "embed.weight", "--out", "/dev/null"},
            {"dump", "--json", sample.toString(), "embed.weight"},
            {"dump", "--jobs", "4", sample.toString(), "embed.weight", "--out", "/dev/null"},
            {"reshard", "--jobs", "4", sample.toString(), "--out", "/tmp/never-written"},
            {"reshard", "--parallel", "0", sample.toString(), "--out", "/tmp/never-written"},
            {"reshard", "--part-size", "65537", sample.toString(), "--out", "/tmp/never-written"},
        };
        for (String[] args : cases) {
            Cli.Run run = InProcess.run(args);
            assertEquals(2, run.exit(), String.join(" ", args) + "\n" + run.describe());
            assertTrue(run.stderr().startsWith("safetensors: "), run.describe());
            // under --json, the usage error is also one JSON object on stdout (CommandEdgesTest)
            assertTrue(java.util.List.of(args).contains("--json")
                    ? run.out().startsWith("{\"kind\":\"usage\",\"status\":\"usage\"")
                    : run.stdout().length == 0, run.describe());
            assertTrue(!run.stderr().contains("\tat "), "no stack trace\n" + run.describe());
        }
    }
}
