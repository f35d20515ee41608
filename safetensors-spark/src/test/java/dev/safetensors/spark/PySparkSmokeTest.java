package dev.safetensors.spark;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The data source from PySpark: {@code spark.read.format("safetensors")} in a Python process that loads this
 * module's classes. Needs {@code python3} with {@code pyspark} importable; where it is not (PyPI cannot be reached
 * from the build machines), the test is skipped with a message on stderr and in the report.
 */
class PySparkSmokeTest {
    private static final long PROCESS_LIMIT_SECONDS = 300;

    @TempDir
    Path dir;

    @Test
    void pysparkReadsTheSource() throws Exception {
        String missing = pysparkMissing();
        if (missing != null) {
            System.err.println("SKIPPED PySparkSmokeTest: " + missing);
        }
        Assumptions.assumeTrue(missing == null, missing);

        Fixtures.write(dir.resolve("a.safetensors"), 1);
        String classPath = Arrays.stream(System.getProperty("surefire.test.class.path",
                        System.getProperty("java.class.path")).split(File.pathSeparator))
                .filter(p -> p.contains("safetensors") && !p.contains("safetensors-s3"))
                .collect(Collectors.joining(File.pathSeparator));
        Path script = Files.writeString(dir.resolve("smoke.py"), String.join("\n",
                "import sys",
                "from pyspark.sql import SparkSession",
                "spark = (SparkSession.builder.master('local[1]')",
                "         .config('spark.driver.extraClassPath', sys.argv[1]).getOrCreate())",
                "df = spark.read.format('safetensors').load(sys.argv[2])",
                "print('ROWS', df.where(\"dtype = 'F32'\").count())",
                "spark.stop()", ""));
        Process p = new ProcessBuilder("python3", script.toString(), classPath, dir.toString())
                .redirectErrorStream(true).start();
        boolean done = p.waitFor(PROCESS_LIMIT_SECONDS, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly();
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(done, "the PySpark process did not finish in " + PROCESS_LIMIT_SECONDS + " s:\n" + out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("ROWS 1"), out);
    }

    /** @return why PySpark cannot run here, or {@code null} when it can */
    private static String pysparkMissing() throws InterruptedException {
        try {
            Process p = new ProcessBuilder("python3", "-c", "import pyspark").redirectErrorStream(true).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "python3 -c 'import pyspark' did not finish in 60 s";
            }
            return p.exitValue() == 0 ? null : "pyspark is not installed for python3 (PyPI is not reachable from"
                    + " this machine, so it cannot be installed); the PySpark example in docs/spark.md is untested here";
        } catch (IOException e) {
            return "no python3 on this machine: " + e.getMessage();
        }
    }
}
