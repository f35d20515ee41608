package dev.safetensors.examples;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ExampleBatch} reports each run as a JVM of its own would: the remote examples' tests rely on it to stand for
 * {@code java -cp ... Example}. {@link InspectLocal} is the example here, with no SDK to load: a run that succeeds, one
 * whose {@code main} throws, and one after it, beside the throwing run in a JVM of its own.
 */
class ExampleBatchTest {
    private static final String SAMPLE = Path.of("data", "sample.safetensors").toString();
    private static final String ABSENT = Path.of("data", "absent.safetensors").toString();
    private static List<ExampleProcess.Result> batch;
    private static ExampleProcess.Result alone;

    @BeforeAll
    static void runBoth() throws Exception {
        batch = ExampleProcess.runAll(Map.of(), List.of(new ExampleProcess.Invocation(InspectLocal.class, SAMPLE),
                new ExampleProcess.Invocation(InspectLocal.class, ABSENT),
                new ExampleProcess.Invocation(InspectLocal.class, SAMPLE)), i -> { });
        alone = ExampleProcess.run(InspectLocal.class, Map.of(), ABSENT);
    }

    @Test
    void aRunThatSucceedsHasExitCodeZeroAndItsOwnOutput() {
        ExampleProcess.Result r = batch.get(0);
        assertEquals(0, r.exitCode(), r.stderr());
        assertTrue(r.stdout().startsWith(SAMPLE + ": 4 tensors"), r.stdout());
        assertEquals("", r.stderr());
    }

    @Test
    void anExceptionThatLeavesMainIsReportedAsTheJvmReportsIt() {
        ExampleProcess.Result r = batch.get(1);
        assertEquals(alone.exitCode(), r.exitCode(), r.stderr());
        assertEquals(1, r.exitCode());
        assertEquals(alone.stdout(), r.stdout());
        String firstLine = alone.stderr().lines().findFirst().orElseThrow();
        assertTrue(firstLine.startsWith("Exception in thread \"main\" ") && firstLine.contains(ABSENT), alone.stderr());
        assertEquals(firstLine, r.stderr().lines().findFirst().orElseThrow(), r.stderr());
        assertTrue(r.stderr().contains("at dev.safetensors.examples.InspectLocal.main("), "the stack trace follows: "
                + r.stderr());
    }

    @Test
    void aRunAfterAFailureIsNotAffectedByIt() {
        assertEquals(batch.get(0), batch.get(2));
    }
}
