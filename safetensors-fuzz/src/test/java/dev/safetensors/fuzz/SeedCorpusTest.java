package dev.safetensors.fuzz;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The seeds state their verdicts; the validator, the reference and the invariants must all arrive at them. This keeps
 * the reference honest rule by rule, not only where it happens to agree with the validator.
 */
class SeedCorpusTest {
    @TestFactory
    Stream<DynamicTest> fileSeedsHaveTheirStatedVerdict() {
        return FileSeeds.all().stream().map(seed -> DynamicTest.dynamicTest(seed.name(), () -> {
            for (PolicyPair policy : PolicyPair.ALL) {
                ValidatorRun run = FileJudge.judge(seed.bytes(), policy);
                if (policy == seed.policy()) {
                    assertEquals(seed.expected(), run.verdict(), run.toString());
                }
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> indexSeedsHaveTheirStatedValidity() {
        return IndexSeeds.all().stream().map(seed -> DynamicTest.dynamicTest(seed.name(), () -> {
            IndexJudge.Result r = IndexJudge.judge(seed.bytes());
            assertEquals(seed.valid(), r.parsed() != null, r.reference().reason());
        }));
    }
}
