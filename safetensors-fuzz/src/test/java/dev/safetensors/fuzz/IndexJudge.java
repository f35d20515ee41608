package dev.safetensors.fuzz;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidHeaderException;
import dev.safetensors.core.ShardIndex;
import dev.safetensors.fuzz.reference.IndexJudgement;
import dev.safetensors.fuzz.reference.ReferenceIndexChecker;

import java.util.LinkedHashSet;
import java.util.List;

/**
 * Parses an index with the library and with the reference, and requires them to agree: on validity, and for a valid
 * index on the weight map (in order), the shard list and {@code total_size}. Only {@code INVALID_INDEX} may escape.
 */
final class IndexJudge {
    /**
     * @param parsed    the library's index, or {@code null} when it refused
     * @param reference the reference's judgement
     */
    record Result(ShardIndex parsed, IndexJudgement reference) {
    }

    private IndexJudge() {
    }

    static Result judge(byte[] json) {
        ShardIndex parsed;
        try {
            parsed = ShardIndex.parse("index.json", json);
        } catch (InvalidHeaderException e) {
            if (e.code() != ErrorCode.INVALID_INDEX) {
                throw new AssertionError("an index failure with code " + e.code(), e);
            }
            parsed = null;
        } catch (Throwable t) {
            throw new AssertionError(t.getClass().getName() + " escaped ShardIndex.parse", t);
        }
        IndexJudgement reference = ReferenceIndexChecker.check(json);
        if ((parsed != null) != reference.valid()) {
            throw new AssertionError("ShardIndex.parse " + (parsed == null ? "refused" : "accepted")
                    + " the index, the reference " + (reference.valid() ? "accepts it" : "says " + reference.reason())
                    + "\nindex: " + Printable.bytes(json));
        }
        if (parsed != null) {
            boolean same = List.copyOf(parsed.weightMap().entrySet()).equals(List.copyOf(reference.weightMap().entrySet()))
                    && parsed.shards().equals(List.copyOf(new LinkedHashSet<>(reference.weightMap().values())))
                    && parsed.totalSize().equals(reference.totalSize());
            if (!same) {
                throw new AssertionError("ShardIndex.parse read " + parsed.weightMap() + " " + parsed.totalSize()
                        + ", the reference " + reference.weightMap() + " " + reference.totalSize()
                        + "\nindex: " + Printable.bytes(json));
            }
        }
        return new Result(parsed, reference);
    }
}
