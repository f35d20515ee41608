package dev.safetensors.core;

import dev.safetensors.InvalidHeaderException;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.UnsupportedDtypeException;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Runs every case of an external conformance corpus: a folder whose {@code cases.jsonl} lists files with their
 * expected verdict ({@code valid} with a tensor count, {@code invalid}, {@code unsupported}). The folder comes from
 * the system property {@code safetensors.conformance.dir} (the build passes {@code -Dconformance.dir=...}); without
 * it the test is skipped with a message, and a folder that does not exist is a failure.
 */
class ConformanceTest {
    private static final Pattern FIELD = Pattern.compile("\"(file|expect|tensors)\"\\s*:\\s*(\"([^\"]*)\"|(\\d+))");

    record Case(String file, String expect, int tensors) {
    }

    @TestFactory
    List<DynamicTest> everyCaseMatchesItsExpectedVerdict() throws IOException {
        Path folder = ConformanceCorpus.folder("ConformanceTest");
        List<Case> cases = read(folder.resolve("cases.jsonl"));
        assertFalse(cases.isEmpty(), "no cases in " + folder);
        List<DynamicTest> tests = new ArrayList<>();
        for (Case c : cases) {
            tests.add(DynamicTest.dynamicTest(c.file() + " is " + c.expect(), () -> check(folder.resolve(c.file()), c)));
        }
        return tests;
    }

    private static void check(Path file, Case c) throws IOException {
        switch (c.expect()) {
            case "valid" -> {
                SafetensorsHeader h = Safetensors.readHeader(file);
                assertEquals(c.tensors(), h.tensors().size(), "tensor count of " + c.file());
            }
            case "invalid" -> assertThrows(InvalidHeaderException.class, () -> Safetensors.readHeader(file));
            case "unsupported" -> assertThrows(UnsupportedDtypeException.class, () -> Safetensors.readHeader(file));
            default -> throw new AssertionError("unknown expectation '" + c.expect() + "' for " + c.file());
        }
    }

    static List<Case> read(Path casesFile) throws IOException {
        List<Case> cases = new ArrayList<>();
        for (String line : Files.readAllLines(casesFile)) {
            if (line.isBlank()) {
                continue;
            }
            String file = null;
            String expect = null;
            int tensors = -1;
            Matcher m = FIELD.matcher(line);
            while (m.find()) {
                switch (m.group(1)) {
                    case "file" -> file = m.group(3);
                    case "expect" -> expect = m.group(3);
                    default -> tensors = Integer.parseInt(m.group(4));
                }
            }
            if (file == null || expect == null) {
                throw new AssertionError("malformed case line: " + line);
            }
            cases.add(new Case(file, expect, tensors));
        }
        return cases;
    }
}
