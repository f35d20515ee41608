package dev.safetensors.cli.checks;

import dev.safetensors.cli.results.SourceResult;

/** The work a command does on one file or shard; implementations report every failure in the result. */
@FunctionalInterface
public interface FileCheck {
    /**
     * @param file the file to examine
     * @return what was found; never throws for a problem with the file
     */
    SourceResult check(Target.File file);
}
