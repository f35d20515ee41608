package dev.safetensors.core;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Where the shared conformance corpus is: the system property {@code safetensors.conformance.dir}, which the build
 * sets from {@code -Dconformance.dir=...}. Unset, the tests that need it are skipped loudly (a banner on stderr and
 * an assumption that names the fix) outside CI, and fail under CI ({@code CI=true}), where a skipped corpus would
 * pass silently. Set to a folder that does not exist, they fail, so a mistyped path never passes.
 */
final class ConformanceCorpus {
    private ConformanceCorpus() {
    }

    /**
     * @param test the test that needs the corpus, for the skip message
     * @return the corpus folder
     */
    static Path folder(String test) {
        String dir = System.getProperty("safetensors.conformance.dir", "");
        if (dir.isBlank()) {
            String message = "SKIPPED " + test + ": no conformance corpus given; run with"
                    + " -Dconformance.dir=../shared/conformance to include it";
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                fail(message + " (CI=true: the corpus is required)");
            }
            System.err.println("*".repeat(100) + "\n*** " + message + "\n" + "*".repeat(100));
            assumeTrue(false, message);
        }
        Path folder = Path.of(dir);
        assertTrue(Files.isDirectory(folder), "conformance folder " + folder.toAbsolutePath() + " does not exist");
        return folder;
    }
}
