package dev.safetensors.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Files composed from the fuzzer's choices ({@link HeaderComposer}), mostly well formed, so that the entry,
 * arithmetic and layout rules are where inputs are accepted or refused.
 */
class StructuredHeaderFuzzTest {
    @FuzzTest
    void composedFile(FuzzedDataProvider data) {
        byte[] file = HeaderComposer.compose(data);
        for (PolicyPair policy : PolicyPair.ALL) {
            FileJudge.judge(file, policy);
        }
    }
}
