package dev.safetensors.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Arbitrary bytes as a whole file. Reaches the prefix, UTF-8 and JSON rules directly; the seed corpus (valid files
 * of many shapes and one mutation per rule) lets the mutator reach the rest.
 */
class RawFileFuzzTest {
    @FuzzTest
    void wholeFile(byte[] file) {
        for (PolicyPair policy : PolicyPair.ALL) {
            FileJudge.judge(file, policy);
        }
    }
}
