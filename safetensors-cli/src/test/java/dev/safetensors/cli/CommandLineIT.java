package dev.safetensors.cli;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Version and help through the launcher: the smoke test of a start; usage errors are in {@link CommandLineTest}. */
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
}
