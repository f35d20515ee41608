package dev.safetensors.spark;

import dev.safetensors.ErrorCode;
import dev.safetensors.core.Safetensors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared conformance corpus read through Spark, in one scan per level: every file gets its expected verdict
 * ({@code valid} with its tensor count, {@code invalid}, {@code unsupported}) and exactly the code the library gives
 * when it reads the file itself. The folder comes from {@code safetensors.conformance.dir}, as in core's test;
 * without it the test is skipped with a message.
 */
class ConformanceThroughSparkTest {
    private static final Pattern FIELD = Pattern.compile("\"(file|expect|tensors)\"\\s*:\\s*(\"([^\"]*)\"|(\\d+))");
    private static SparkSession spark;

    record Case(String file, String expect, int tensors) {
    }

    @BeforeAll
    static void start() {
        String dir = System.getProperty("safetensors.conformance.dir", "");
        if (dir.isBlank()) {
            System.err.println("SKIPPED ConformanceThroughSparkTest: no conformance corpus given;"
                    + " run with -Dconformance.dir=../shared/conformance to include it");
        }
        Assumptions.assumeFalse(dir.isBlank(),
                "no conformance corpus given: run with -Dconformance.dir=../shared/conformance to include it");
        spark = LocalSpark.start();
    }


    @TestFactory
    List<DynamicTest> everyCaseGetsItsVerdictAndTheLibrarysCode() throws IOException {
        Path folder = Path.of(System.getProperty("safetensors.conformance.dir"));
        assertTrue(Files.isDirectory(folder), "conformance folder " + folder.toAbsolutePath() + " does not exist");
        List<Case> cases = read(folder.resolve("cases.jsonl"));
        assertFalse(cases.isEmpty(), "no cases in " + folder);
        String[] paths = cases.stream().map(c -> folder.resolve(c.file()).toString()).toArray(String[]::new);

        Map<String, Row> files = new HashMap<>();
        spark.read().format("safetensors").option("level", "file").load(paths).collectAsList()
                .forEach(r -> files.put(r.getAs("path"), r));
        Map<String, List<Row>> tensors = new HashMap<>();
        spark.read().format("safetensors").load(paths).collectAsList()
                .forEach(r -> tensors.computeIfAbsent(r.getAs("path"), k -> new ArrayList<>()).add(r));

        List<DynamicTest> tests = new ArrayList<>();
        for (Case c : cases) {
            Path file = folder.resolve(c.file());
            tests.add(DynamicTest.dynamicTest(c.file() + " is " + c.expect(),
                    () -> check(file, c, files.get(file.toString()), tensors.get(file.toString()))));
        }
        return tests;
    }

    private static void check(Path file, Case c, Row fileRow, List<Row> tensorRows) {
        assertNotNull(fileRow, "no file row for " + c.file());
        assertNotNull(tensorRows, "no tensor rows for " + c.file());
        String expectedCode = libraryCode(file);
        assertEquals(expectedCode, fileRow.getAs("error_code"), "code of " + c.file());
        switch (c.expect()) {
            case "valid" -> {
                assertNull(expectedCode, c.file() + " fails in the library itself");
                assertEquals(c.tensors(), (long) fileRow.getAs("tensor_count"), "tensor count of " + c.file());
                long named = tensorRows.stream().filter(r -> r.getAs("tensor") != null).count();
                assertEquals(c.tensors(), named, "tensor rows of " + c.file());
                tensorRows.forEach(r -> assertNull(r.getAs("error_code")));
            }
            case "invalid", "unsupported" -> {
                if (c.expect().equals("unsupported")) {
                    assertEquals(ErrorCode.UNSUPPORTED_DTYPE.name(), fileRow.getAs("error_code"), c.file());
                } else {
                    assertNotNull(fileRow.getAs("error_code"), c.file() + " was accepted");
                    assertNotEquals(ErrorCode.UNSUPPORTED_DTYPE.name(), fileRow.getAs("error_code"), c.file());
                }
                assertEquals(1, tensorRows.size(), "one error row for " + c.file());
                assertEquals(expectedCode, tensorRows.get(0).getAs("error_code"));
                assertNull(tensorRows.get(0).getAs("tensor"));
            }
            default -> throw new AssertionError("unknown expectation '" + c.expect() + "' for " + c.file());
        }
    }

    private static String libraryCode(Path file) {
        try {
            Safetensors.readHeader(file);
            return null;
        } catch (IOException e) {
            return ErrorCode.of(e).name();
        }
    }

    private static List<Case> read(Path casesFile) throws IOException {
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
