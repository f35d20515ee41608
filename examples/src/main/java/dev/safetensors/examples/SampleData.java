package dev.safetensors.examples;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the examples find the sample checkpoint when they are run without arguments. */
final class SampleData {
    private SampleData() {
    }

    /**
     * @return {@code args[index]} as a path if given, otherwise the sample checkpoint, found from the repository root
     *         ({@code examples/data/...}) or from the examples directory ({@code data/...})
     */
    static Path fileArgument(String[] args, int index) {
        if (args.length > index) {
            return Path.of(args[index]);
        }
        Path fromRoot = Path.of("examples", "data", "sample.safetensors");
        return Files.exists(fromRoot) ? fromRoot : Path.of("data", "sample.safetensors");
    }
}
