package dev.safetensors.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.SafetensorsHeader;
import dev.safetensors.fuzz.reference.ReferenceCrossCheck;
import dev.safetensors.fuzz.reference.ReferenceCrossCheck.ShardTensor;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The shard index parser on arbitrary bytes, and the index-to-shards cross-check on composed checkpoints. */
class ShardIndexFuzzTest {
    @FuzzTest
    void indexBytes(byte[] json) {
        IndexJudge.judge(json);
    }

    @FuzzTest
    void crossCheck(FuzzedDataProvider data) throws IOException {
        ShardSetComposer.ShardSet set = ShardSetComposer.compose(data);
        IndexJudge.Result index = IndexJudge.judge(set.indexJson());
        if (index.parsed() == null) {
            return;
        }
        Optional<Long> actual;
        try {
            actual = Optional.of(index.parsed().verifyAgainst(set.given()));
        } catch (InvalidHeaderException e) {
            if (e.code() != ErrorCode.INVALID_INDEX) {
                throw new AssertionError("a cross-check failure with code " + e.code(), e);
            }
            actual = Optional.empty();
        } catch (Throwable t) {
            throw new AssertionError(t.getClass().getName() + " escaped verifyAgainst", t);
        }
        Map<String, List<ShardTensor>> shards = new LinkedHashMap<>();
        for (Map.Entry<String, SafetensorsHeader> e : set.given().entrySet()) {
            shards.put(e.getKey(), e.getValue().tensors().stream()
                    .map(t -> new ShardTensor(t.name(), t.byteLength())).toList());
        }
        Optional<Long> expected = ReferenceCrossCheck.check(index.reference(), shards);
        if (!actual.equals(expected)) {
            throw new AssertionError("verifyAgainst returned " + actual.map(String::valueOf).orElse("a refusal")
                    + ", the reference " + expected.map(String::valueOf).orElse("a refusal") + "\nindex: "
                    + Printable.bytes(set.indexJson()) + "\nshards: " + shards);
        }
    }
}
