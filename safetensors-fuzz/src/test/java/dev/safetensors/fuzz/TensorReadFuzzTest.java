package dev.safetensors.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.safetensors.fuzz.reference.Verdict;

import java.util.List;

/**
 * Tensor reads ({@code copyTensorTo}, {@code readBytes}, {@code readFloat32}) on composed files that the validator
 * accepts, with payload bytes from the fuzzer, a low element cap, a source that hands out few bytes per read and a
 * channel that takes few per write.
 */
class TensorReadFuzzTest {
    /** Read and write sizes around the 64 KiB block of rule 22. */
    private static final int[] CHUNKS = {Integer.MAX_VALUE, 1, 7, 65_535, 65_536, 65_537};

    @FuzzTest
    void readTensors(FuzzedDataProvider data) {
        byte[] file = HeaderComposer.compose(data);
        int cap = data.consumeInt(0, 40);
        // unbounded first, so an exhausted provider (which answers index 0) costs no extra reads
        int maxPerRead = data.pickValue(CHUNKS);
        int maxPerWrite = data.pickValue(CHUNKS);
        PayloadFill.fill(file, data);
        for (PolicyPair policy : List.of(PolicyPair.DEFAULT, PolicyPair.OFFICIAL)) {
            ValidatorRun run = FileJudge.judge(file, policy);
            if (run.verdict() == Verdict.VALID) {
                TensorReads.check(file, run.header(), policy.limits().toBuilder().maxFloat32Elements(cap).build(),
                        maxPerRead, maxPerWrite);
            }
        }
    }
}
