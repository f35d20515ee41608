package dev.safetensors.core;

import dev.safetensors.Limits;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Every valid file of the shared conformance corpus survives read-then-write with identical tensors and metadata.
 * The corpus lives outside the repository: the build passes {@code -Dconformance.dir=...} on as the system property
 * {@code safetensors.conformance.dir}. Unset, the test is skipped; set to a folder that does not exist, it fails, so a
 * mistyped path never passes silently.
 */
class ConformanceRoundTripTest {

    @Test
    void everyValidFileSurvivesReadThenWrite() throws IOException {
        Path folder = ConformanceCorpus.folder("ConformanceRoundTripTest");
        List<Path> valid;
        // the corpus names its files by expectation: valid_*, invalid_*, unsupported_*
        try (Stream<Path> files = Files.list(folder)) {
            valid = files.filter(p -> p.getFileName().toString().startsWith("valid_")
                    && p.getFileName().toString().endsWith(".safetensors")).sorted().toList();
        }
        assertFalse(valid.isEmpty(), "no valid_*.safetensors in " + folder);
        for (Path p : valid) {
            RoundTrip.assertSurvives(p.getFileName().toString(), Files.readAllBytes(p), Limits.STRICT);
        }
    }
}
