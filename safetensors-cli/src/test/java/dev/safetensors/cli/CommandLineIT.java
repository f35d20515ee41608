package dev.safetensors.cli;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Help, version and usage errors (exit 2), through the launcher. */
class CommandLineIT {

    @Test
    void versionNamesTheToolAndTheJava() {
        Cli.Run run = Cli.run("--version").exits(0);
        assertTrue(run.out().startsWith("safetensors 0."), run.describe());
        assertTrue(run.out().contains("Java " + Runtime.version().feature()), run.describe());
    }

    @Test
    void helpListsEverySubcommandWithExamplesAndExitCodes() {
        Cli.Run run = Cli.run("--help").exits(0);
        for (String command : new String[] {"inspect", "validate", "verify", "manifest", "dump"}) {
            assertTrue(run.out().contains("  " + command), command + "\n" + run.describe());
        }
        assertTrue(run.out().contains("Examples:"), run.describe());
        assertTrue(run.out().contains("3 some source could not be read"), run.describe());
    }

    @Test
    void everySubcommandHasHelpWithExamplesAndTheCommonOptions() {
        for (String command : new String[] {"inspect", "validate", "verify", "manifest", "dump"}) {
            Cli.Run run = Cli.run(command, "--help").exits(0);
            assertTrue(run.out().contains("Examples:"), run.describe());
            assertTrue(run.out().contains("safetensors " + command), run.describe());
            for (String option : new String[] {"--json", "--policy", "--jobs", "--max-header-bytes", "--debug"}) {
                assertTrue(run.out().contains(option), option + "\n" + run.describe());
            }
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
        };
        for (String[] args : cases) {
            Cli.Run run = Cli.run(args);
            assertEquals(2, run.exit(), String.join(" ", args) + "\n" + run.describe());
            assertTrue(run.stderr().startsWith("safetensors: "), run.describe());
            assertTrue(run.stdout().length == 0, run.describe());
            assertTrue(!run.stderr().contains("\tat "), "no stack trace\n" + run.describe());
        }
    }
}
