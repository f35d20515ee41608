package dev.safetensors.examples;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the examples find the sample data when they are run without arguments. */
final class SampleData {
    private SampleData() {
    }

    /**
     * @return {@code args[index]} as a path if given, otherwise the sample checkpoint, found from the repository root
     *         ({@code examples/data/...}) or from the examples directory ({@code data/...})
     */
    static Path fileArgument(String[] args, int index) {
        return args.length > index ? Path.of(args[index]) : sample("sample.safetensors");
    }

    /**
     * @return {@code args[index]} if given, otherwise the index of the two-shard sample checkpoint, found as
     *         {@link #fileArgument} finds the single file
     */
    static String shardedArgument(String[] args, int index) {
        return args.length > index ? args[index] : sample("sharded/model.safetensors.index.json").toString();
    }

    private static Path sample(String relative) {
        Path fromRoot = Path.of("examples", "data").resolve(relative);
        return Files.exists(fromRoot) ? fromRoot : Path.of("data").resolve(relative);
    }
}
