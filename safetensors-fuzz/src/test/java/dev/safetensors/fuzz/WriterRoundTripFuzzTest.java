package dev.safetensors.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.safetensors.fuzz.reference.Verdict;

import java.util.List;

/** Accepted composed files written back with {@code SafetensorsWriter} and read again ({@link WriterRoundTrip}). */
class WriterRoundTripFuzzTest {
    @FuzzTest
    void writeBack(FuzzedDataProvider data) {
        byte[] file = HeaderComposer.compose(data);
        boolean f32AsFloats = data.consumeBoolean();
        PayloadFill.fill(file, data);
        for (PolicyPair policy : List.of(PolicyPair.DEFAULT, PolicyPair.OFFICIAL)) {
            ValidatorRun run = FileJudge.judge(file, policy);
            if (run.verdict() == Verdict.VALID) {
                WriterRoundTrip.check(file, run.header(), policy, f32AsFloats);
            }
        }
    }
}
