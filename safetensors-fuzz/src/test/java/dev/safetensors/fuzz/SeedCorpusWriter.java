package dev.safetensors.fuzz;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the generated seed corpus to a scratch directory, one folder per fuzz target that takes raw bytes, so that
 * the smoke script can hand each to libFuzzer. The seeds are generated, never committed. The composed-input targets
 * take the fuzzer's choice bytes rather than files, so they start from libFuzzer's empty input instead.
 *
 * <p>Usage: {@code SeedCorpusWriter DIR}; creates {@code DIR/wholeFile} and {@code DIR/indexBytes}.
 */
public final class SeedCorpusWriter {
    private SeedCorpusWriter() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: SeedCorpusWriter DIR");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        Path files = Files.createDirectories(dir.resolve("wholeFile"));
        for (FileSeeds.Seed s : FileSeeds.all()) {
            Files.write(files.resolve(s.name()), s.bytes());
        }
        Path indexes = Files.createDirectories(dir.resolve("indexBytes"));
        for (IndexSeeds.Seed s : IndexSeeds.all()) {
            Files.write(indexes.resolve(s.name()), s.bytes());
        }
        System.out.println("seeds: " + FileSeeds.all().size() + " files in " + files + ", " + IndexSeeds.all().size()
                + " indexes in " + indexes);
    }
}
